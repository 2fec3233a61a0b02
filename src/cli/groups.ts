/** The command groups of `till`, in the order its help lists them (dispatched by main.ts). */
import { activity } from './activity.js'
import type { Command, Group } from './args.js'
import { events } from './events.js'
import { keys } from './keys.js'
import { links } from './links.js'
import { merchants } from './merchants.js'
import { providers } from './providers.js'
import { reconcile } from './reconcile.js'
import { refunds } from './refunds.js'
import { sessions } from './sessions.js'
import { triggers } from './trigger.js'
import { webhooks } from './webhooks-listen.js'

export const GROUPS: Group[] = [merchants, keys, providers, sessions, refunds, webhooks, events, triggers, links]

/** Commands without subcommands. */
export const COMMANDS: Record<string, Command> = { reconcile, activity }
