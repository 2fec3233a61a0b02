import { IdParam, Session, errors } from '../schemas.js'

export const GetSession = {
  summary: 'Read a payment session',
  tags: ['sessions'],
  params: IdParam,
  response: { 200: Session, ...errors(401, 404, 429) },
}
