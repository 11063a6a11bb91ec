import { describe, expect, it } from "vitest"
import { encodeKeyPath, makeDownloadLinkSigner } from "./DownloadLinkSigner.ts"

const signer = makeDownloadLinkSigner("s3cret", "https://dl.example.org/")
const key = "jobs/prj_a/job_b/My Clip (1).mp4"
const expiresAtMs = 1_900_000_000_500

const parts = (link: string) => {
  const url = new URL(link)
  return {
    url,
    expires: url.searchParams.get("expires") ?? "",
    signature: url.searchParams.get("signature") ?? ""
  }
}

describe("DownloadLinkSigner", () => {
  it("builds a link under /v1/files with the key encoded segment by segment", () => {
    const { expires, signature, url } = parts(signer.url(key, expiresAtMs, "My Clip (1).mp4"))
    expect(url.origin).toBe("https://dl.example.org")
    expect(url.pathname).toBe("/v1/files/jobs/prj_a/job_b/My%20Clip%20(1).mp4")
    expect(expires).toBe("1900000000")
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })

  it("verifies its own link before expiry", () => {
    const { expires, signature } = parts(signer.url(key, expiresAtMs, "x"))
    expect(signer.verify(key, expires, signature, expiresAtMs - 10_000)).toBe("valid")
  })

  it("reports an untampered link past its expiry as expired", () => {
    const { expires, signature } = parts(signer.url(key, expiresAtMs, "x"))
    expect(signer.verify(key, expires, signature, 1_900_000_000_000)).toBe("expired")
    expect(signer.verify(key, expires, signature, expiresAtMs + 1)).toBe("expired")
  })

  it("refuses a tampered key, expiry or signature as invalid", () => {
    const { expires, signature } = parts(signer.url(key, expiresAtMs, "x"))
    const now = expiresAtMs - 10_000
    expect(signer.verify("jobs/prj_a/job_c/My Clip (1).mp4", expires, signature, now)).toBe("invalid")
    expect(signer.verify(key, String(Number(expires) + 3600), signature, now)).toBe("invalid")
    expect(signer.verify(key, expires, signature.slice(0, -1) + (signature.endsWith("A") ? "B" : "A"), now)).toBe("invalid")
    expect(signer.verify(key, expires, "", now)).toBe("invalid")
    expect(signer.verify(key, "12abc", signature, now)).toBe("invalid")
  })

  it("refuses a link signed with another secret", () => {
    const other = makeDownloadLinkSigner("other", "https://dl.example.org")
    const { expires, signature } = parts(other.url(key, expiresAtMs, "x"))
    expect(signer.verify(key, expires, signature, expiresAtMs - 10_000)).toBe("invalid")
  })

  it("round-trips keys through the URL path", () => {
    const encoded = encodeKeyPath("thumbnails/med_x/a?b#c%d.jpg")
    expect(encoded).toBe("thumbnails/med_x/a%3Fb%23c%25d.jpg")
    expect(encoded.split("/").map(decodeURIComponent).join("/")).toBe("thumbnails/med_x/a?b#c%d.jpg")
  })
})
