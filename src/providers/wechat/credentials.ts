import { InvalidField } from '../../domain/errors.js'
import { requirePrivateKeyPem, requirePublicKeyPem, requireString, type Fields } from '../credentials.js'

/**
 * WeChat Pay v3 direct-merchant credentials. The public-key pair is optional (platform-certificate
 * mode). appSecret, the official account's secret, is needed only for JSAPI (openid via OAuth).
 * Unknown fields are refused by the module, from its field list (module.ts).
 */
export function validateWechatCredentials(c: Fields) {
  const p = 'credentials'
  requireString(c, 'mchId', p, /^\d{1,32}$/, 'must be the merchant number (digits)')
  requireString(c, 'appId', p, /^[0-9A-Za-z_]{1,32}$/, 'must be an appid such as wx…')
  requireString(c, 'merchantSerialNo', p, /^[0-9A-Fa-f]{8,64}$/, 'must be the hex serial of the merchant certificate')
  requirePrivateKeyPem(c, 'privateKey', p)
  const v3 = requireString(c, 'apiV3Key', p)
  if (Buffer.byteLength(v3) !== 32) throw new InvalidField(`${p}.apiV3Key`, 'must be 32 characters')
  const hasId = c.platformPublicKeyId !== undefined
  const hasKey = c.platformPublicKey !== undefined
  if (hasId || hasKey) {
    requireString(c, 'platformPublicKeyId', p, /^PUB_KEY_ID_[0-9A-Za-z_]+$/, 'must look like PUB_KEY_ID_…')
    requirePublicKeyPem(c, 'platformPublicKey', p)
  }
  if (c.appSecret !== undefined) requireString(c, 'appSecret', p, /^[0-9A-Za-z]{16,64}$/, 'must be the official account AppSecret')
}
