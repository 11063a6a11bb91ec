// The sign-in form's CSRF token: random, with its expiry, signed by the gateway, so that only tokens this service issued count.
import { createHmac, randomBytes } from "node:crypto"
import { tokensEqual } from "./TokenCompare.ts"

/** How long a sign-in form stays usable. The expiry is inside the signed token: a kept cookie does not extend it. */
export const LOGIN_TOKEN_MS = 3600 * 1000

const mac = (key: string, payload: string) => createHmac("sha256", key).update(`mds-login-csrf:${payload}`).digest("base64url")

/** `<expiresAt>.<random>.<HMAC(key, expiresAt.random)>`: the cookie and the form's hidden field carry the same token. */
export const issueLoginToken = (key: string, now: number): string => {
  const payload = `${now + LOGIN_TOKEN_MS}.${randomBytes(24).toString("base64url")}`
  return `${payload}.${mac(key, payload)}`
}

/**
 * The sign-in form is accepted only when the field equals the cookie AND the token carries this gateway's signature
 * and has not expired. A token someone planted in the cookie jar (a sibling subdomain can set cookies without the
 * __Host- prefix) must have come from this service within the hour, and cannot be made up.
 */
export const verifyLoginToken = (key: string, cookieToken: string, fieldToken: string, now: number): boolean => {
  if (!tokensEqual(cookieToken, fieldToken)) return false
  const parts = cookieToken.split(".")
  if (parts.length !== 3) return false
  const [expiresAt = "", random = "", signature = ""] = parts
  if (!/^[0-9]{1,15}$/.test(expiresAt) || Number(expiresAt) <= now) return false
  return tokensEqual(signature, mac(key, `${expiresAt}.${random}`))
}
