/** Runs load-worker.ts in a separate process for each load: the generator never shares an event loop with the target. */
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { LoadResult, LoadSpec } from './load-worker.js'

export type { LoadResult, LoadSpec }

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const child = fork(fileURLToPath(new URL('./load-worker.ts', import.meta.url)), { execArgv: ['--import', 'tsx'], stdio: 'inherit' })
  try {
    return await new Promise<LoadResult>((resolve, reject) => {
      child.on('message', (m: { ready?: boolean; result?: LoadResult; error?: string }) => {
        if (m.ready) child.send(spec)
        else if (m.result) resolve(m.result)
        else if (m.error) reject(new Error(m.error))
      })
      child.once('exit', (code) => reject(new Error(`load generator exited with ${code}`)))
    })
  } finally {
    child.kill()
  }
}
