// How the adapters name what went wrong (the codes a test answers), and that a message never carries a credential.
import { Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { destinationErrorCode, isSafeDestinationKey, type WritableTarget } from "./DestinationWriter.ts"
import { folderFailure, isInside } from "./FolderDestinationWriter.ts"
import { objectName, s3Failure } from "./S3DestinationWriter.ts"

const target: Extract<WritableTarget, { kind: "s3" }> = {
  kind: "s3",
  endpoint: "https://s3.example.com",
  bucket: "media",
  region: "us-east-1",
  prefix: "tv/",
  accessKeyId: Redacted.make("AKIAIOSFODNN7EXAMPLE"),
  secretAccessKey: Redacted.make("wJalrXUtnFEMI-secret")
}
const coded = (code: string, message = "refused") => Object.assign(new Error(message), { code })

describe("S3 failures", () => {
  it("names credentials and permissions denied, a missing bucket missing, network failures unreachable, the rest failed", () => {
    const code = (cause: unknown) => destinationErrorCode(s3Failure(target, "write")(cause))
    for (const c of ["AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch"]) expect(code(coded(c))).toBe("destination_denied")
    expect(code(coded("NoSuchBucket"))).toBe("destination_missing")
    for (const c of ["ECONNREFUSED", "ENOTFOUND", "ETIMEDOUT", "UND_ERR_CONNECT_TIMEOUT", "DEPTH_ZERO_SELF_SIGNED_CERT"]) {
      expect(code(coded(c))).toBe("destination_unreachable")
    }
    expect(code(coded("InternalError"))).toBe("destination_failed")
    expect(code("a string")).toBe("destination_failed")
  })

  it("masks the access key id and the secret wherever a server echoed them", () => {
    const failure = s3Failure(target, "write")(coded("InvalidAccessKeyId", "key AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI-secret unknown"))
    expect(failure.message).toBe("InvalidAccessKeyId: key **** / **** unknown")
  })

  it("puts keys under the prefix", () => {
    expect(objectName("tv/", "show/ep1.mkv")).toBe("tv/show/ep1.mkv")
    expect(objectName("", "ep1.mkv")).toBe("ep1.mkv")
  })
})

describe("folder failures and bounds", () => {
  it("names a refused write denied and a missing folder missing", () => {
    expect(destinationErrorCode(folderFailure("write")(coded("EACCES")))).toBe("destination_denied")
    expect(destinationErrorCode(folderFailure("write")(coded("EROFS")))).toBe("destination_denied")
    expect(destinationErrorCode(folderFailure("write")(coded("ENOENT")))).toBe("destination_missing")
    expect(destinationErrorCode(folderFailure("write")(coded("ENOSPC")))).toBe("destination_failed")
  })

  it("tells a folder inside the root from one beside or above it", () => {
    expect(isInside("/srv/media", "/srv/media")).toBe(true)
    expect(isInside("/srv/media", "/srv/media/project-a")).toBe(true)
    expect(isInside("/srv/media", "/srv/media-other")).toBe(false)
    expect(isInside("/srv/media", "/srv")).toBe(false)
    expect(isInside("/srv/media", "/etc")).toBe(false)
  })

  it("takes relative keys that stay inside, and nothing else", () => {
    for (const key of ["a.mp4", "Show/Season 1/E01 [1080p].mkv", ".hidden", "a..b"]) expect(isSafeDestinationKey(key), key).toBe(true)
    for (const key of ["", "/abs", "a//b", "a/", "../x", "a/../b", "./a", "a\\b", "a\u0000b", "x".repeat(1025)]) {
      expect(isSafeDestinationKey(key), JSON.stringify(key)).toBe(false)
    }
  })
})
