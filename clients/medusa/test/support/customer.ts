/**
 * The customer on Till's hosted checkout page: open the page the storefront sent them to, and
 * either press "Pay" (or "Simulate a failed payment") in test mode, or in live mode choose Stripe
 * and pay by card on Stripe's page (the fake's). Redirects are followed until they leave Till and
 * Stripe. Plain HTTP, as a browser without scripts does it: the pages work without JavaScript.
 */
export interface Visit {
  /** Where the customer ended up: the storefront's return URL, or a Till page. */
  location: string
}

/** The page at `url` and its form posting to an action ending in `/${ending}` (with the form's token, when it has one). */
async function formOn(url: string, ending: string) {
  const page = await fetch(url)
  if (page.status !== 200) throw new Error(`${url} answered ${page.status}`)
  const html = await page.text()
  const action = new RegExp(`action="([^"]*/${ending})"`).exec(html)?.[1]
  const token = /name="token" value="([^"]+)"/.exec(html)?.[1] // Till's form token, the same in each of its forms
  if (!action) throw new Error(`no ${ending} form on ${url} (is the session still open, and in this mode?)`)
  return { action: new URL(action, url), token }
}

/** Posts a form and follows the redirects while they stay on `origins`. */
async function submit(action: URL, fields: Record<string, string>, origins: string[]): Promise<Visit> {
  let answer = await fetch(action, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' })
  let location = action.toString()
  while (answer.status === 303 || answer.status === 302) {
    location = new URL(answer.headers.get('location')!, location).toString()
    if (!origins.includes(new URL(location).origin)) break // back at the storefront
    answer = await fetch(location, { redirect: 'manual' })
  }
  if (answer.status !== 200 && origins.includes(new URL(location).origin)) throw new Error(`${location} answered ${answer.status}`)
  return { location }
}

export async function onTillPage(url: string, button: 'pay' | 'fail'): Promise<Visit> {
  const { action, token } = await formOn(url, button)
  if (!token) throw new Error(`no form token on Till's page ${url}`)
  return submit(action, { token }, [new URL(url).origin])
}

/**
 * Live mode: "Pay with Stripe" on Till's page (which answers a page going on to Stripe's), then the
 * card on Stripe's hosted page, which sends the customer through Till's relay back to the storefront.
 */
export async function payByCard(url: string, card: string, stripeUrl: string): Promise<Visit> {
  const [till, stripe] = [new URL(url).origin, new URL(stripeUrl).origin]
  const choose = await formOn(url, 'choose')
  if (!choose.token) throw new Error(`no form token on Till's page ${url}`)
  const picked = await fetch(choose.action, { method: 'POST', body: new URLSearchParams({ token: choose.token, provider: 'stripe' }), redirect: 'manual' })
  const html = await picked.text()
  const onward = new RegExp(`href="(${stripe.replace(/[.]/g, '\\.')}/[^"]+)"`).exec(html)?.[1]
  if (picked.status !== 200 || !onward) throw new Error(`choosing Stripe on Till's page answered ${picked.status} without a way on to Stripe`)
  const cardForm = await formOn(onward, 'pay/cs_\\w+')
  return submit(cardForm.action, { email: 'customer@till.test', card, expiry: '12/34', cvc: '123' }, [till, stripe])
}
