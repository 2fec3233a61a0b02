import type { FastifyPluginAsync } from 'fastify'
import type { Deps } from '../../services/deps.js'

export const paymentRoutes = (_deps: Deps): FastifyPluginAsync => async () => {}
