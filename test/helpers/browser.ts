/**
 * Debian's Chromium driven by playwright-core: one browser per test file, a fresh
 * context per test, screenshots saved to test-artifacts/ for people to look at.
 */
import { mkdirSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import type { TestContext } from 'node:test'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type BrowserContextOptions, type Locator, type Page } from 'playwright-core'
import { TEST_TLS } from './receiver.js'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const ARTIFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-artifacts')

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}

export const PHONE: BrowserContextOptions = { viewport: { width: 375, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true }
export const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 860 } }

export interface OpenPage {
  page: Page
  /** Content-Security-Policy reports and page errors seen so far: a test expects none. */
  problems: string[]
}

/** A page in a fresh context (no cookies), closed when the test ends. */
export async function openPage(t: TestContext, browser: Browser, opts: BrowserContextOptions = DESKTOP): Promise<OpenPage> {
  const context = await browser.newContext({ locale: 'en-US', ...opts })
  t.after(() => context.close())
  const page = await context.newPage()
  const problems: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text())
  })
  page.on('pageerror', (e) => problems.push(e.message))
  return { page, problems }
}

/**
 * Clicks something that loads the next page (at another address or the same one) and returns once
 * that page is parsed: a read right after a bare click may still see the page before.
 */
export async function clickToNextPage(page: Page, target: Locator) {
  await Promise.all([page.waitForEvent('framenavigated', (f) => f === page.mainFrame()), target.click()])
  await page.waitForLoadState('domcontentloaded')
}

/** Saves a full-page screenshot as test-artifacts/<name>.png (not committed). */
export async function screenshot(page: Page, name: string) {
  mkdirSync(ARTIFACTS, { recursive: true })
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true })
}

/**
 * The merchant's site: records each request to successUrl and answers with a small page. Live mode
 * needs an https successUrl: `tls` serves the test certificate (the context then needs ignoreHTTPSErrors).
 */
export async function merchantSite(t: TestContext, opts: { tls?: boolean } = {}) {
  const visits: URL[] = []
  const handler: http.RequestListener = (req, res) => {
    if (req.url === '/favicon.ico') return void res.writeHead(204).end()
    visits.push(new URL(req.url ?? '/', `${opts.tls ? 'https' : 'http'}://${req.headers.host}`))
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end('<!doctype html><title>Merchant</title><h1>Thanks from the merchant</h1>')
  }
  const server = opts.tls ? https.createServer(TEST_TLS, handler) : http.createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  const origin = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { origin, visits }
}
