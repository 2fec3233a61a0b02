/**
 * A statement's zip, unpacked whole or not at all (docs/providers.md#alipay-alipay), with JSZip:
 * every entry's CRC-32 checked, so a damaged download is refused rather than read. Alipay writes
 * entry names in GBK without the UTF-8 flag; a name with the flag (or a Unicode path field) is UTF-8.
 */
import iconv from 'iconv-lite'
import JSZip from 'jszip'

export interface ZipEntry {
  name: string
  body: Buffer
}

export class DamagedZip extends Error {}

const gbkName = (bytes: string[] | Uint8Array | Buffer) => iconv.decode(Buffer.from(bytes as Uint8Array), 'gbk')

/** Every file of the archive, each checked against its CRC-32; DamagedZip when any is not whole. */
export async function unzipChecked(zip: Buffer): Promise<ZipEntry[]> {
  try {
    const archive = await JSZip.loadAsync(zip, { checkCRC32: true, decodeFileName: gbkName })
    const files = Object.values(archive.files).filter((f) => !f.dir)
    return await Promise.all(files.map(async (f) => ({ name: f.name, body: await f.async('nodebuffer') })))
  } catch (e) {
    throw new DamagedZip((e as Error).message)
  }
}

/** A zip of `files`, names written in GBK as Alipay writes them (the fake's bill). */
export function zipGbk(files: Record<string, Buffer>): Promise<Buffer> {
  const archive = new JSZip()
  for (const [name, body] of Object.entries(files)) archive.file(name, body, { date: new Date(0) })
  return archive.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', encodeFileName: (name) => iconv.encode(name, 'gbk') as unknown as string })
}
