/** The console's bearer secrets (a session's cookie, an invitation's or a reset's link): random, stored only as a SHA-256. */
import { hash, randomBytes } from 'node:crypto'

/** 256 random bits, URL-safe. */
export const newToken = () => randomBytes(32).toString('base64url')

/** What the database keeps of a token: a lookup by it finds the row, a leak of the row opens nothing. */
export const tokenHash = (token: string) => hash('sha256', token)
