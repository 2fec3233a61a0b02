/**
 * The merchant's receiver for the benchmark, in its own process so that it does not share a CPU
 * core's event loop with the deliverer: answers 200 at once and remembers when each request arrived.
 * Driven over IPC: `reset`, `wait` (answers once n requests have arrived), then `dump` returns [key, arrivedAt] pairs (key = event id + path).
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

const now = () => performance.timeOrigin + performance.now()
let arrivals: [string, number][] = []
/** A pending `wait`: answered once that many requests have arrived (no polling of the whole list). */
let waiting: number | null = null

const server = http.createServer((req, res) => {
  req.resume().on('end', () => {
    arrivals.push([`${req.headers['x-service-event-id']} ${req.url}`, now()])
    if (waiting !== null && arrivals.length >= waiting) {
      waiting = null
      process.send!({ arrived: arrivals.length })
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
  })
})
server.keepAliveTimeout = 60_000

server.listen(0, '127.0.0.1', () => {
  process.send!({ port: (server.address() as AddressInfo).port })
})

process.on('message', (m: { cmd: string; n?: number }) => {
  if (m.cmd === 'wait') {
    if (arrivals.length >= m.n!) process.send!({ arrived: arrivals.length })
    else waiting = m.n!
  } else if (m.cmd === 'reset') {
    arrivals = []
    process.send!({ reset: true })
  } else if (m.cmd === 'dump') {
    process.send!({ arrivals })
  } else if (m.cmd === 'stop') {
    server.closeAllConnections()
    server.close(() => process.exit(0))
  }
})
