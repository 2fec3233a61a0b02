/** @till-payments/node: the server-side client for the Till payment API. */
export { Till, type Method, type TillConfig } from './client.js'
export {
  AuthenticationError,
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  RateLimitError,
  TillConnectionError,
  TillError,
} from './errors.js'
export type { ListMethod, Page, PagePromise } from './pagination.js'
export { VERSION, type RequestOptions } from './request.js'
export type * from './types.js'
export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  WebhookVerificationError,
  constructEvent,
  verifyWebhookSignature,
  type ConstructEventOptions,
  type RawBody,
  type SignatureHeader,
  type WebhookFailure,
} from './webhooks.js'
