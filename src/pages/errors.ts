/** Errors the pages answer with an HTML page of their own (the API's TillErrors map by status). */
import { TillError } from '../domain/errors.js'

/** A form posted without this page's token (cross-site, or a page from before a key change). */
export class FormTokenInvalid extends TillError {
  constructor() {
    super(403, 'invalid form token')
  }
}

export class BadForm extends TillError {
  constructor(message: string) {
    super(400, message)
  }
}

/** A return from WeChat's OAuth whose state is not this session's (forged, or for another session). */
export class OauthStateInvalid extends TillError {
  constructor() {
    super(403, 'invalid oauth state')
  }
}
