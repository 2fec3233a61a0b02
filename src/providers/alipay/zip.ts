/**
 * A statement's zip, unpacked whole or not at all (docs/providers.md#alipay-alipay). fflate inflates
 * the entries; each one's CRC-32, which fflate does not check, is compared here with the central
 * directory's, so a damaged download is refused rather than read. Alipay writes entry names in GBK
 * without the UTF-8 flag (bit 11); a name with the flag is UTF-8.
 */
import { crc32 } from 'node:zlib'
import { unzipSync } from 'fflate'
import iconv from 'iconv-lite'

export interface ZipEntry {
  name: string
  body: Buffer
}

export class DamagedZip extends Error {}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50
const CENTRAL_HEADER = 0x02014b50
const UTF8_NAME = 0x800

interface Listed {
  /** The name as fflate keys it: UTF-8 with the flag, else each byte as one character. */
  key: string
  name: string
  crc: number
}

/** The central directory's entries; throws DamagedZip when the archive's end or its directory is missing (a truncated download). */
function listing(zip: Buffer): Listed[] {
  // The end record is within its own 22 bytes plus a comment of at most 64 KiB from the end.
  let end = -1
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) {
      end = at
      break
    }
  }
  if (end < 0) throw new DamagedZip('the zip has no end record (truncated?)')
  const count = zip.readUInt16LE(end + 10)
  let at = zip.readUInt32LE(end + 16)
  if (at + zip.readUInt32LE(end + 12) > end) throw new DamagedZip('the zip\'s directory lies outside the file')
  const out: Listed[] = []
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || zip.readUInt32LE(at) !== CENTRAL_HEADER) throw new DamagedZip('the zip\'s directory is damaged')
    const utf8 = (zip.readUInt16LE(at + 8) & UTF8_NAME) !== 0
    const nameLength = zip.readUInt16LE(at + 28)
    const raw = zip.subarray(at + 46, at + 46 + nameLength)
    out.push({ key: raw.toString(utf8 ? 'utf8' : 'latin1'), name: utf8 ? raw.toString('utf8') : iconv.decode(raw, 'gbk'), crc: zip.readUInt32LE(at + 16) })
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32)
  }
  return out
}

/** Every file of the archive, each checked against its CRC-32; DamagedZip when any is not whole. */
export function unzipChecked(zip: Buffer): ZipEntry[] {
  const listed = listing(zip)
  let files: Record<string, Uint8Array>
  try {
    files = unzipSync(zip)
  } catch (e) {
    throw new DamagedZip(`the zip does not inflate: ${(e as Error).message}`)
  }
  if (new Set(listed.map((l) => l.key)).size !== listed.length) throw new DamagedZip('the zip names an entry twice')
  return listed.filter((l) => !l.key.endsWith('/')).map((l) => {
    const data = files[l.key]
    if (!data) throw new DamagedZip(`${l.name}: listed but not in the zip`)
    const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    if (crc32(body) !== l.crc) throw new DamagedZip(`${l.name}: its CRC-32 does not match`)
    return { name: l.name, body }
  })
}
