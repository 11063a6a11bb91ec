// `mds destinations add` takes the keys from the environment only, and the text never shows more than the API does.
import { describe, expect, it } from "vitest"
import { ACCESS_KEY_ENV, addRequestOf, destinationText, SECRET_KEY_ENV, testText } from "./DestinationText.ts"

const flags = { name: "NAS", endpoint: "https://s3.example.com", bucket: "media", prefix: "tv", json: true }
const env = { [ACCESS_KEY_ENV]: "AKIAIOSFODNN7EXAMPLE", [SECRET_KEY_ENV]: "secret-secret" }

describe("mds destinations add", () => {
  it("builds the request from the flags and the keys from the environment", () => {
    expect(addRequestOf(flags, env)).toEqual({
      name: "NAS",
      type: "s3",
      endpoint: "https://s3.example.com",
      bucket: "media",
      prefix: "tv",
      access_key_id: "AKIAIOSFODNN7EXAMPLE",
      secret_access_key: "secret-secret"
    })
  })

  it("names every missing flag and variable; a key given as a flag is not read", () => {
    expect(addRequestOf({ name: "NAS", secret_access_key: "on-the-command-line" }, {})).toBe(
      `destinations add needs --endpoint, --bucket, ${ACCESS_KEY_ENV}, ${SECRET_KEY_ENV}`
    )
  })

  it("shows a destination and a failed test without anything the API did not answer", () => {
    const text = destinationText({
      id: "dst_a",
      name: "NAS",
      type: "s3",
      created_by: "project",
      endpoint: "https://s3.example.com",
      bucket: "media",
      region: "us-east-1",
      prefix: "tv/",
      access_key_id: "****MPLE",
      refresh: null,
      last_refresh: null,
      created_at: "2026-11-28T00:00:00.000Z"
    })
    expect(text).toBe("dst_a s3     NAS: https://s3.example.com/media/tv/ (us-east-1, key ****MPLE)\n")
    expect(testText({ ok: false, step: "write", error: { code: "destination_denied", message: "AccessDenied" }, duration_ms: 5 })).toBe(
      "failed at write: destination_denied: AccessDenied\n"
    )
  })
})
