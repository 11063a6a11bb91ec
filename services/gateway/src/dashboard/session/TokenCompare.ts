// Constant-time comparison of two tokens (session CSRF tokens, the sign-in form's token and its signature).
import { timingSafeEqual } from "node:crypto"

export const tokensEqual = (a: string, b: string): boolean => {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right)
}
