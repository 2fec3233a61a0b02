/**
 * Lists, after stripe-node's auto-pagination: `await list(params)` is one page, and
 * `for await (const x of list(params))` walks every page, newest first, asking for the next one
 * (starting_after the last id) only when the loop gets there.
 */
import type { RequestOptions } from './request.js'

export interface Page<T> {
  data: T[]
  /** Whether a page starting after the last item of this one has more. */
  hasMore: boolean
}

/** One page when awaited; every item of every page when iterated with `for await`. */
export type PagePromise<T> = Promise<Page<T>> & AsyncIterable<T>

export interface PageQuery {
  limit?: number
  starting_after?: string
}

export type ListMethod<Q extends PageQuery, T> = {} extends Q
  ? (params?: Q, options?: RequestOptions) => PagePromise<T>
  : (params: Q, options?: RequestOptions) => PagePromise<T>

export function listMethod<Q extends PageQuery, T extends { id: string }>(fetchPage: (params: Q | undefined, options?: RequestOptions) => Promise<Page<T>>): ListMethod<Q, T> {
  const list = (params?: Q, options?: RequestOptions): PagePromise<T> => {
    const first = fetchPage(params, options)
    // Iterating only: the loop awaits (and so handles) the first page; this keeps it from being reported unhandled meanwhile.
    first.catch(() => {})
    async function* items(): AsyncGenerator<T> {
      let page = await first
      for (;;) {
        yield* page.data
        const last = page.data.at(-1)
        if (!page.hasMore || !last) return
        page = await fetchPage({ ...params, starting_after: last.id } as Q, options)
      }
    }
    return Object.assign(first, { [Symbol.asyncIterator]: items })
  }
  return list as ListMethod<Q, T>
}
