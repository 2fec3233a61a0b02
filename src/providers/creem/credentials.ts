import { onlyKnown, requireString, type Fields } from '../credentials.js'

export function validateCreemCredentials(c: Fields) {
  onlyKnown(c, ['apiKey', 'webhookSecret'], 'credentials')
  requireString(c, 'apiKey', 'credentials')
  requireString(c, 'webhookSecret', 'credentials')
}
