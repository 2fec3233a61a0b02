/** Valid provider credentials for admin-API tests: a fresh RSA pair for WeChat Pay, plain strings for Creem. */
import { generateKeyPairSync } from 'node:crypto'

export function wechatCredentials() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  return {
    mchId: '1230000109',
    appId: 'wxd678efh567hg6787',
    merchantSerialNo: '5157F09EFDC096DE15EBE81A47057A7232F1B8E1',
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    apiV3Key: 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6',
    platformPublicKeyId: 'PUB_KEY_ID_0114232134912410000000000000',
    platformPublicKey: publicKey.export({ type: 'spki', format: 'pem' }) as string,
  }
}

export const creemCredentials = () => ({ apiKey: 'creem_test_x', webhookSecret: 'whsec_x' })
