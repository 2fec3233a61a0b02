/** The HTML error pages of the pages and the console: which message a status gets, and the answer. */
import type { FastifyReply } from 'fastify'
import { sendHtml } from './html.js'
import { LOCALES, type Locale } from './locale.js'
import { setDefaultPageHeaders } from './security.js'

/** The error pages' sentences, added to each side's catalogues (withErrorSentences). */
export type ErrorKey = `error.${'badRequest' | 'forbidden' | 'notFound' | 'server'}.${'title' | 'body'}`

// One copy for the customer pages and the console: a customer and a merchant read the same words
// for the same error.
const ERROR_SENTENCES: Record<Locale, Record<ErrorKey, string>> = {
  en: {
    'error.notFound.title': 'Page not found',
    'error.notFound.body': 'This link is not valid. Check it, or ask whoever sent it for a new one.',
    'error.forbidden.title': 'This form has expired',
    'error.forbidden.body': 'Please go back, reload the page and try again.',
    'error.badRequest.title': 'This request could not be handled',
    'error.badRequest.body': 'Please go back, reload the page and try again.',
    'error.server.title': 'Something went wrong',
    'error.server.body': 'Please try again in a moment.',
  },
  'zh-CN': {
    'error.notFound.title': '页面不存在',
    'error.notFound.body': '此链接无效。请检查链接，或向发送者索取新的链接。',
    'error.forbidden.title': '表单已失效',
    'error.forbidden.body': '请返回，刷新页面后重试。',
    'error.badRequest.title': '无法处理此请求',
    'error.badRequest.body': '请返回，刷新页面后重试。',
    'error.server.title': '出错了',
    'error.server.body': '请稍后再试。',
  },
  'zh-HK': {
    'error.notFound.title': '找不到頁面',
    'error.notFound.body': '此連結無效。請檢查連結，或向發送者索取新連結。',
    'error.forbidden.title': '表格已失效',
    'error.forbidden.body': '請返回上一頁，重新載入頁面後再試。',
    'error.badRequest.title': '未能處理此要求',
    'error.badRequest.body': '請返回上一頁，重新載入頁面後再試。',
    'error.server.title': '發生錯誤',
    'error.server.body': '請稍後再試。',
  },
  ja: {
    'error.notFound.title': 'ページが見つかりません',
    'error.notFound.body': 'このリンクは無効です。リンクをご確認いただくか、送信元に新しいリンクをお求めください。',
    'error.forbidden.title': 'このフォームの有効期限が切れました',
    'error.forbidden.body': '前のページに戻り、ページを再読み込みしてからもう一度お試しください。',
    'error.badRequest.title': 'このリクエストを処理できませんでした',
    'error.badRequest.body': '前のページに戻り、ページを再読み込みしてからもう一度お試しください。',
    'error.server.title': '問題が発生しました',
    'error.server.body': 'しばらくしてから再度お試しください。',
  },
}

/** A side's catalogues with the error pages' sentences added. */
export const withErrorSentences = <K extends string>(catalogues: Record<Locale, Record<K, string>>) =>
  Object.fromEntries(LOCALES.map((l) => [l, { ...catalogues[l], ...ERROR_SENTENCES[l] }])) as Record<Locale, Record<K | ErrorKey, string>>

const MESSAGES: Record<number, [ErrorKey, ErrorKey]> = {
  400: ['error.badRequest.title', 'error.badRequest.body'],
  403: ['error.forbidden.title', 'error.forbidden.body'],
  404: ['error.notFound.title', 'error.notFound.body'],
  500: ['error.server.title', 'error.server.body'],
}

/** The title and text of a status's page: its own, or the 400's or the 500's. */
export const errorMessage = (status: number) => MESSAGES[status] ?? (status >= 500 ? MESSAGES[500] : MESSAGES[400])

/** An error page; headers from before the error (a route's own CSP) are replaced by the defaults. */
export function sendErrorPage(reply: FastifyReply, status: number, node: { toString(): string | Promise<string> }) {
  setDefaultPageHeaders(reply)
  return sendHtml(reply, status, node)
}
