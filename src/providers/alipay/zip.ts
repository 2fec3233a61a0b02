/**
 * A statement's zip (docs/providers.md#alipay-alipay), read with yauzl under limits checked before
 * and while it is unpacked (docs/operate.md#what-till-reads-from-a-provider): the number of entries
 * from the archive's directory before any is read; each entry wanted, its declared size and packing
 * ratio before it is inflated; its actual size (yauzl) and CRC-32 while it is, one entry at a time,
 * streamed. A damaged archive is DamagedZip (downloaded again); one past a limit is
 * StatementRefused. Alipay writes entry names in GBK without the UTF-8 flag; a name with the flag
 * (or a Unicode path field) is UTF-8.
 */
import * as zlib from 'node:zlib'
import { createRequire } from 'node:module'
import iconv from 'iconv-lite'
import JSZip from 'jszip'
import yauzl from 'yauzl'
import { inMiB, ZIP_MAX_ENTRIES, ZIP_MAX_RATIO, ZIP_RATIO_FROM_BYTES } from '../limits.js'
import { StatementRefused } from '../statements.js'

export class DamagedZip extends Error {}

/** Quoted in a reason: a few names, never a hostile archive's thousands. */
const QUOTED_NAMES = 5

/** An entry found in the directory, not yet read. */
export interface ZipEntry {
  name: string
  size: number
}

export interface OpenedZip {
  /** Every entry's name, in the archive's order. */
  names: string[]
  /** The entries wanted. */
  entries: ZipEntry[]
  /** The entry's bytes as they are inflated, checked against its declared size and CRC-32: DamagedZip when not whole. */
  read(entry: ZipEntry): AsyncGenerator<Buffer>
}

const UNICODE_PATH = 0x7075
type Crc32 = (data: Buffer, value: number) => number
// zlib's own from Node 20.15 and 22.2; before, buffer-crc32 (as yauzl does).
const crc32: Crc32 = (zlib as { crc32?: Crc32 }).crc32
  ?? ((data, value) => (createRequire(import.meta.url)('buffer-crc32') as typeof import('buffer-crc32')).unsigned(data, value))

function nameOf(e: yauzl.Entry): string {
  if (e.generalPurposeBitFlag & 0x800) return e.fileNameRaw.toString('utf8')
  // yauzl takes a Unicode path field only when it still matches the name (its CRC-32); else CP437, for which GBK stands.
  const unicode = yauzl.getFileNameLowLevel(e.generalPurposeBitFlag, e.fileNameRaw, e.extraFields, false)
  const plain = yauzl.getFileNameLowLevel(e.generalPurposeBitFlag, e.fileNameRaw, e.extraFields.filter((f) => f.id !== UNICODE_PATH), false)
  return unicode !== plain ? unicode : iconv.decode(e.fileNameRaw, 'gbk')
}

/** `names` for a reason: the first few, and how many more. */
export function quotedNames(names: string[]): string {
  if (names.length === 0) return 'nothing'
  const more = names.length - QUOTED_NAMES
  return names.slice(0, QUOTED_NAMES).join(', ') + (more > 0 ? ` and ${more} more` : '')
}

/**
 * The archive's directory, refused past ZIP_MAX_ENTRIES before an entry is read; the entries
 * `wanted` keeps, each refused when it declares more than `maxBytes` or packs more than
 * ZIP_MAX_RATIO times. Nothing is inflated here.
 */
export async function openZip(zip: Buffer, wanted: (name: string) => boolean, maxBytes: number): Promise<OpenedZip> {
  let archive: yauzl.ZipFile
  try {
    archive = await yauzl.fromBufferPromise(zip, { decodeStrings: false, validateEntrySizes: true })
  } catch (e) {
    throw new DamagedZip((e as Error).message)
  }
  if (archive.entryCount > ZIP_MAX_ENTRIES) throw new StatementRefused(`the bill's zip holds ${archive.entryCount} entries, more than ${ZIP_MAX_ENTRIES}; refused`)
  const found = new Map<ZipEntry, yauzl.Entry>()
  const names: string[] = []
  try {
    for await (const e of archive.eachEntry()) {
      const name = nameOf(e)
      names.push(name)
      if (name.endsWith('/') || !wanted(name)) continue
      if (e.uncompressedSize > maxBytes) throw new StatementRefused(`the bill's zip entry ${name} unpacks to ${inMiB(e.uncompressedSize)}, more than ${inMiB(maxBytes)}; refused`)
      if (e.uncompressedSize > ZIP_RATIO_FROM_BYTES && e.uncompressedSize > ZIP_MAX_RATIO * e.compressedSize) {
        throw new StatementRefused(`the bill's zip entry ${name} unpacks ${Math.round(e.uncompressedSize / Math.max(1, e.compressedSize))} times its size, more than ${ZIP_MAX_RATIO}; refused`)
      }
      found.set({ name, size: e.uncompressedSize }, e)
    }
  } catch (e) {
    if (e instanceof StatementRefused) throw e
    throw new DamagedZip((e as Error).message)
  }
  return {
    names,
    entries: [...found.keys()],
    async *read(entry) {
      const e = found.get(entry)!
      let crc = 0
      try {
        const stream = await archive.openReadStreamPromise(e)
        // yauzl ends the stream in error at the first byte past the declared size.
        for await (const c of stream) {
          crc = crc32(c as Buffer, crc)
          yield c as Buffer
        }
      } catch (err) {
        throw new DamagedZip(`${entry.name}: ${(err as Error).message}`)
      }
      if (crc !== e.crc32) throw new DamagedZip(`${entry.name}: CRC-32 mismatch`)
    },
  }
}

/** A zip of `files`, names written in GBK as Alipay writes them (the fake's bill), with JSZip. */
export function zipGbk(files: Record<string, Buffer>): Promise<Buffer> {
  const archive = new JSZip()
  for (const [name, body] of Object.entries(files)) archive.file(name, body, { date: new Date(0) })
  return archive.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', encodeFileName: (name) => iconv.encode(name, 'gbk') as unknown as string })
}
