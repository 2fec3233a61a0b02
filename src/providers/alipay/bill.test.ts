import assert from 'node:assert/strict'
import { test } from 'node:test'
import iconv from 'iconv-lite'
import JSZip from 'jszip'
import type { StatementFile, StatementItem, StatementLine } from '../statements.js'
import { billItems, csvRecords, DETAIL_FILE, SUMMARY_FILE } from './bill.js'
import { gathered } from '../statement-stream.js'
import { DamagedZip, openZip, zipGbk } from './zip.js'

const HEADER = '支付宝交易号,商户订单号,业务类型,商品名称,创建时间,完成时间,门店编号,门店名称,操作员,终端号,对方账户,订单金额（元）,商家实收（元）,支付宝红包（元）,集分宝（元）,支付宝优惠（元）,商家优惠（元）,券核销金额（元）,券名称,商家红包消费金额（元）,卡消费金额（元）,退款批次号/请求号,服务费（元）,分润（元）,备注'
const row = (tradeNo: string, outTradeNo: string, type: string, name: string, created: string, done: string, amount: string, requestNo: string, fee: string) =>
  `${tradeNo}\t,${outTradeNo}\t,${type}\t,${name},${created},${done},\t,\t,\t,\t,*津水(602***@qq.com)\t,${amount},${amount},0.00,0.00,0.00,0.00,0.00,,0.00\t,0.00,${requestNo}\t,${fee},0.00,`

/** A day as Alipay writes it: a payment with a quoted product name, a partial refund of it, a second payment. */
const DETAIL = [
  '#支付宝业务明细查询',
  '#账号：[20880211096256330156]',
  '#起始日期：[2026年05月20日 00:00:00]   终止日期：[2026年05月21日 00:00:00]',
  '#-----------------------------------------业务明细列表----------------------------------------',
  HEADER,
  row('2026052022001458860515315453', 'att_a', '交易', '"蓝色马克杯, 大号 ""限量"""', '2026-05-20 10:55:16', '2026-05-20 10:55:23', '99.00', '', '-0.59'),
  row('2026052022001458860515315453', 'att_a', '退款', '"蓝色马克杯, 大号 ""限量"""', '2026-05-20 10:55:16', '2026-05-20 11:26:55', '-50.00', 'ref_1', '0.30'),
  row('2026052022001465870515233238', 'att_b', '交易', '茶', '2026-05-20 23:58:56', '2026-05-20 23:59:58', '12.34', '', '-0.07'),
  '#-----------------------------------------业务明细列表结束------------------------------------',
  '#交易合计：2笔，商家实收共111.34元，商家优惠共0.00元',
  '#退款合计：1笔，商家实收退款共-50.00元，商家优惠退款共0.00元',
  '#导出时间：[2026年05月21日 05:46:49]',
].join('\r\n') + '\r\n'

const SUMMARY = [
  '#支付宝业务汇总查询',
  '#账号：[20880211096256330156]',
  '#起始日期：[2026年05月20日 00:00:00]   终止日期：[2026年05月21日 00:00:00]',
  '#-----------------------------------------业务汇总列表----------------------------------------',
  '门店编号,门店名称,交易订单总笔数,退款订单总笔数,订单金额（元）,商家实收（元）,支付宝优惠（元）,商家优惠（元）,卡消费金额（元）,服务费（元）,分润（元）,实收净额（元）',
  '\t,\t,2,1,61.34,61.34,0.00,0.00,0.00,-0.36,0.00,60.98',
  '合计,,2,1,61.34,61.34,0.00,0.00,0.00,-0.36,0.00,60.98',
  '#----------------------------------------业务汇总列表结束-------------------------------------',
  '#导出时间：[2026年05月21日 05:46:49]',
].join('\r\n') + '\r\n'

const gbk = (s: string) => iconv.encode(s, 'gbk')
/** The text in GBK, 7 bytes at a time, so records and two-byte characters straddle the pieces as they would a stream's chunks. */
async function* pieces(text: string): AsyncGenerator<Buffer> {
  const b = gbk(text)
  for (let at = 0; at < b.length; at += 7) yield b.subarray(at, at + 7)
}
const files = (detail = DETAIL, summary = SUMMARY): StatementFile[] => [
  { name: DETAIL_FILE, body: pieces(detail), type: 'text/csv; charset=gbk' },
  { name: SUMMARY_FILE, body: pieces(summary), type: 'text/csv; charset=gbk' },
]
async function all(f: StatementFile[]) {
  const out: StatementItem[] = []
  for await (const x of billItems(f)) out.push(x)
  return out
}

test('a real-format day: GBK, # header and footer lines, tab-padded ids, a quoted name with a comma and quotes, a refund row written negative', async () => {
  const items = await all(files())
  const lines = items.filter((x): x is StatementLine => x.kind !== 'total')
  assert.deepEqual(lines.map(({ source: _s, ...l }) => l), [
    { kind: 'payment', tillRef: 'att_a', providerRef: '2026052022001458860515315453', amount: 9900, currency: 'CNY', status: 'succeeded', fee: 59, at: new Date('2026-05-20T02:55:23.000Z') },
    {
      kind: 'refund', tillRef: 'ref_1', providerRef: null, paymentTillRef: 'att_a', paymentProviderRef: '2026052022001458860515315453', amount: 5000, currency: 'CNY',
      status: 'succeeded', fee: -30, at: new Date('2026-05-20T03:26:55.000Z'),
    },
    { kind: 'payment', tillRef: 'att_b', providerRef: '2026052022001465870515233238', amount: 1234, currency: 'CNY', status: 'succeeded', fee: 7, at: new Date('2026-05-20T15:59:58.000Z') },
  ])
  assert.deepEqual([lines[0].source.file, lines[0].source.line], [DETAIL_FILE, 6])
  assert.equal(lines[0].source.fields['商品名称'], '蓝色马克杯, 大号 "限量"')
  assert.equal(lines[0].source.fields['对方账户'], '*津水(602***@qq.com)')
  // On a clean day the summary agrees with the lines: counts and sums per kind, fees the lines' sum.
  assert.deepEqual(items.at(-1), { kind: 'total', currency: 'CNY', payments: { count: 2, amount: 11134 }, refunds: { count: 1, amount: 5000 }, fees: 36 })
})

test('the refund total counts merchant-discount refunds (商家优惠退款) as well as what the merchant paid back', async () => {
  const detail = DETAIL.replace('商家实收退款共-50.00元，商家优惠退款共0.00元', '商家实收退款共-45.00元，商家优惠退款共-5.00元')
  assert.deepEqual((await all(files(detail))).at(-1), { kind: 'total', currency: 'CNY', payments: { count: 2, amount: 11134 }, refunds: { count: 1, amount: 5000 }, fees: 36 })
})

test('a day without business: the files hold no row, and the totals are zeros', async () => {
  const detail = DETAIL.split('\r\n').filter((l) => !/^\d/.test(l)).join('\r\n').replace('2笔，商家实收共111.34元', '0笔，商家实收共0.00元').replace('1笔，商家实收退款共-50.00元', '0笔，商家实收退款共0.00元')
  const summary = SUMMARY.split('\r\n').filter((l) => !l.startsWith('\t')).join('\r\n').replace('合计,,2,1,61.34,61.34,0.00,0.00,0.00,-0.36,0.00,60.98', '合计,,0,0,0.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00')
  assert.deepEqual(await all(files(detail, summary)), [{ kind: 'total', currency: 'CNY', payments: { count: 0, amount: 0 }, refunds: { count: 0, amount: 0 }, fees: 0 }])
})

test('a file that is not whole or not the format is refused, never read in part', async () => {
  const cut = DETAIL.slice(0, DETAIL.indexOf('#-----------------------------------------业务明细列表结束'))
  await assert.rejects(all(files(cut)), /no 业务明细列表结束 line; the file is not whole/)
  await assert.rejects(all(files(DETAIL.replace('\t,交易\t,茶', '\t,冻结\t,茶'))), /trade-detail line 8: unknown 业务类型 冻结/)
  await assert.rejects(all(files(DETAIL.replace('12.34,12.34', '12.345,12.34'))), /line 8: "12.345" is not an amount in yuan/)
  await assert.rejects(all(files(DETAIL.replace(',-0.07,0.00,', ',-0.07,'))), /trade-detail line 8: 24 fields, its header has 25/)
  const storeRow = SUMMARY.split('\r\n')[5]
  await assert.rejects(all(files(DETAIL, SUMMARY.replace(/合计.*\r\n/, `${storeRow}\r\n`))), /trade-summary: no 合计 row/)
  await assert.rejects(all(files(DETAIL, SUMMARY.replace('合计,,2,1,', '合计,,2,x,'))), /trade-summary line 7: 退款订单总笔数 "x" is not a count/)
  await assert.rejects(all([files()[0]]), /not an Alipay trade bill: trade-detail/)
})

test('csvRecords: quoted cells with commas, doubled quotes and line breaks; the line each record starts on', async () => {
  const records = async (text: string) => {
    const out = []
    for await (const r of csvRecords(pieces(text))) out.push(r)
    return out
  }
  const recs = await records('a,"b,1","c ""x""\nd"\r\n\n#note, here\n商品,\n')
  assert.deepEqual(recs.map((r) => [r.line, r.cells]), [[1, ['a', 'b,1', 'c "x"\nd']], [4, ['#note', ' here']], [5, ['商品', '']]])
  assert.equal(recs[1].text, '#note, here')
  await assert.rejects(records('a,"b\n'), /not a CSV file: .*[Qq]uote/)
  // A body that fails (a kept file whose hash no longer matches) fails the reading with its own error.
  async function* failing() {
    yield gbk('a,b\n')
    throw new Error('the kept file does not match its SHA-256 any more')
  }
  await assert.rejects(async () => { for await (const _ of csvRecords(failing())); }, /does not match its SHA-256/)
})

/** Every entry of the archive, read whole (the limits far away). */
async function unzipChecked(zip: Buffer) {
  const opened = await openZip(zip, () => true, 1 << 30)
  const out: { name: string; body: Buffer }[] = []
  for (const e of opened.entries) out.push({ name: e.name, body: await gathered(opened.read(e)) })
  return out
}

const zipOf = (entries: Record<string, string>) => zipGbk(Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, gbk(v)])))

test('openZip: the entries whole; a changed byte (CRC-32) or a truncated archive is refused', async () => {
  const zip = await zipOf({ '2088_20260520_业务明细.csv': DETAIL, '2088_20260520_业务明细(汇总).csv': SUMMARY })
  const got = await unzipChecked(zip)
  assert.deepEqual(got.map((e) => [e.name, iconv.decode(e.body, 'gbk')]), [['2088_20260520_业务明细.csv', DETAIL], ['2088_20260520_业务明细(汇总).csv', SUMMARY]])
  // A byte of a stored (uncompressed) entry changed on the way: only its CRC-32 tells.
  const stored = await new JSZip().file('a.csv', gbk(DETAIL)).generateAsync({ type: 'nodebuffer', compression: 'STORE' })
  stored[stored.indexOf(gbk('att_b'))] ^= 0x01
  await assert.rejects(unzipChecked(stored), (e) => e instanceof DamagedZip && /CRC-32/.test(e.message))
  await assert.rejects(unzipChecked(zip.subarray(0, zip.length - 1)), DamagedZip)
  await assert.rejects(unzipChecked((await zipOf({ 'a.csv': DETAIL })).subarray(0, 40)), DamagedZip)
})

test('openZip: an entry named in GBK without the UTF-8 flag or a Unicode path, as Alipay names them, is read by its Chinese name', async () => {
  const zip = await zipOf({ 'abcdef业务明细.csv': DETAIL })
  assert.ok(zip.includes(gbk('abcdef业务明细.csv')), 'the name is written in GBK')
  assert.equal(zip.readUInt16LE(6) & 0x800, 0, 'no UTF-8 flag')
  // Without the Unicode path field (here: made stale, so readers ignore it) only the GBK bytes name the entry.
  for (let at = zip.indexOf('up'); at >= 0; at = zip.indexOf('up', at + 1)) if (zip[at + 4] === 1) zip[at + 5] ^= 0xff
  assert.deepEqual((await unzipChecked(zip)).map((e) => [e.name, e.body.equals(gbk(DETAIL))]), [['abcdef业务明细.csv', true]])
})
