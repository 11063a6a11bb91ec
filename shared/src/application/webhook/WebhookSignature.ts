// Webhook secrets and signatures: per-endpoint secrets derived from a server secret (nothing stored), and the
// `MDS-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` header receivers verify.
import { createHmac, timingSafeEqual } from "node:crypto"
import { Config } from "effect"

/**
 * The server secret endpoint secrets derive from: WEBHOOK_SECRET, or API_KEY_PEPPER where one process holds both
 * anyway (npm start, tests). Deployments give the aggregator WEBHOOK_SECRET alone, never the pepper.
 */
export const WebhookServerSecret = Config.Redacted("WEBHOOK_SECRET").pipe(Config.orElse(() => Config.Redacted("API_KEY_PEPPER")))

export const SIGNATURE_HEADER = "mds-signature"
export const WEBHOOK_ID_HEADER = "mds-webhook-id"
export const DELIVERY_ID_HEADER = "mds-delivery-id"
export const EVENT_TYPE_HEADER = "mds-event"

/**
 * The endpoint's secret, derived rather than stored, so no secret sits in the event streams. The domain prefix
 * keeps these HMACs apart from the API key hashes made with the same server secret.
 */
export const webhookSecret = (serverSecret: string, projectId: string, webhookId: string): string =>
  `whsec_${createHmac("sha256", serverSecret).update(`webhook-secret:${projectId}:${webhookId}`).digest("base64url")}`

export const signPayload = (secret: string, timestampSeconds: number, body: string): string =>
  createHmac("sha256", secret).update(`${timestampSeconds}.${body}`).digest("hex")

export const signatureHeader = (secret: string, timestampSeconds: number, body: string): string =>
  `t=${timestampSeconds},v1=${signPayload(secret, timestampSeconds, body)}`

/** What a receiver does (shown here for the docs' sample and our own tests): check the HMAC and the age. */
export const verifySignature = (secret: string, header: string, body: string, nowSeconds: number, toleranceSeconds = 300): boolean => {
  const parts = new Map(header.split(",").map((part) => part.split("=", 2) as [string, string]))
  const timestamp = Number(parts.get("t"))
  const given = parts.get("v1") ?? ""
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false
  const expected = Buffer.from(signPayload(secret, timestamp, body), "hex")
  const actual = Buffer.from(given, "hex")
  return expected.length === actual.length && timingSafeEqual(expected, actual)
}
