/** Placeholder on the adapter's branch only: `till fake alipay` is built on the alipayfake branch, which replaces this file. */
import type { FakeCommand } from '../../module.js'

export const command: FakeCommand = {
  usage: 'till fake alipay (not built on this branch)',
  async run() {
    process.stderr.write('till fake alipay is not built on this branch\n')
    return 1
  },
}
