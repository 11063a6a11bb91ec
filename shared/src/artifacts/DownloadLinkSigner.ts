// Signs and verifies the expiring download links the gateway serves under /v1/files/<key>.
import { createHmac, timingSafeEqual } from "node:crypto"
import { Config, Context, Effect, Layer, Redacted } from "effect"

export type LinkVerdict = "valid" | "expired" | "invalid"

export interface DownloadLinkSignerShape {
  /**
   * `${PUBLIC_BASE_URL}/v1/files/<key>?expires=<epoch s>&signature=<sig>`. The browser's file name is the
   * key's last segment, so `filename` is only checked to be that segment and is not a separate parameter.
   */
  url(key: string, expiresAtMs: number, filename: string): string
  verify(key: string, expires: string, signature: string, nowMs: number): LinkVerdict
}

/** Each key segment is percent-encoded on its own so the slashes stay path separators. */
export const encodeKeyPath = (key: string): string => key.split("/").map(encodeURIComponent).join("/")

const sign = (secret: string, key: string, expires: string) => createHmac("sha256", secret).update(`${key}\n${expires}`).digest("base64url")

const EXPIRES = /^[0-9]{1,12}$/

export const makeDownloadLinkSigner = (secret: string, publicBaseUrl: string): DownloadLinkSignerShape => {
  const base = publicBaseUrl.replace(/\/+$/, "")
  return {
    url: (key, expiresAtMs, _filename) => {
      // Rounded down so the link never outlives the artifact it points to.
      const expires = String(Math.floor(expiresAtMs / 1000))
      return `${base}/v1/files/${encodeKeyPath(key)}?expires=${expires}&signature=${sign(secret, key, expires)}`
    },
    verify: (key, expires, signature, nowMs) => {
      if (!EXPIRES.test(expires)) return "invalid"
      const expected = Buffer.from(sign(secret, key, expires))
      const given = Buffer.from(signature)
      // The signature is checked before the expiry so a tampered expiry reads as invalid, not expired.
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "invalid"
      return nowMs >= Number(expires) * 1000 ? "expired" : "valid"
    }
  }
}

/** The gateway's base: PUBLIC_BASE_URL, else its own address http://127.0.0.1:$PORT. */
export const gatewayBaseUrl = Config.Int("PORT").pipe(
  Config.withDefault(8080),
  Config.flatMap((port) => Config.String("PUBLIC_BASE_URL").pipe(Config.withDefault(`http://127.0.0.1:${port}`)))
)

/**
 * A service with no HTTP port of its own (the aggregator's webhooks, the extractor's thumbnails) cannot guess where
 * clients reach the gateway: it must be told, or its links would differ from the gateway's answers.
 */
export const requiredBaseUrl = Config.String("PUBLIC_BASE_URL")

export class DownloadLinkSigner extends Context.Service<DownloadLinkSigner, DownloadLinkSignerShape>()("mds/artifacts/DownloadLinkSigner") {
  /** The signer whose links start with `publicBaseUrl` (DOWNLOAD_URL_SECRET is the key). */
  static readonly layerWith = (publicBaseUrl: Config.Config<string>) =>
    Layer.effect(
      DownloadLinkSigner,
      Effect.map(Config.all({ secret: Config.Redacted("DOWNLOAD_URL_SECRET"), publicBaseUrl }), ({ publicBaseUrl, secret }) =>
        DownloadLinkSigner.of(makeDownloadLinkSigner(Redacted.value(secret), publicBaseUrl))
      )
    )

  /** The gateway's signer (it also verifies the links it serves). */
  static readonly layer = DownloadLinkSigner.layerWith(gatewayBaseUrl)
}
