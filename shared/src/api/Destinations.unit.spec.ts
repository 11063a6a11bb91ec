// The bounds of a destination's request body (what the OpenAPI document shows), and what an answer shows of one.
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import type { Destination } from "../domain/destination/DestinationState.ts"
import { CreateDestinationRequest, normalizedPrefix, toDestinationBody } from "./Destinations.ts"

const valid = {
  name: "Home library",
  type: "s3",
  endpoint: "https://s3.example.com",
  bucket: "media.library-1",
  region: "eu-central-1",
  prefix: "shows/tv",
  access_key_id: "AKIAIOSFODNN7EXAMPLE",
  secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
}
const accepts = (overrides: Record<string, unknown>) => Schema.is(CreateDestinationRequest)({ ...valid, ...overrides })

describe("CreateDestinationRequest", () => {
  it("accepts a whole S3 destination, and one without region and prefix", () => {
    expect(accepts({})).toBe(true)
    const { region: _r, prefix: _p, ...bare } = valid
    expect(Schema.is(CreateDestinationRequest)(bare)).toBe(true)
  })

  it("takes only type s3: a project never names a folder", () => {
    expect(accepts({ type: "folder" })).toBe(false)
    const message = String(Schema.decodeUnknownResult(CreateDestinationRequest)({ ...valid, type: "folder" }))
    expect(message).toContain("operator")
  })

  it("bounds the name to 1-100 characters without control characters", () => {
    expect(accepts({ name: "x".repeat(100) })).toBe(true)
    for (const name of ["", "x".repeat(101), "a\nb"]) expect(accepts({ name })).toBe(false)
  })

  it("takes an http(s) endpoint of at most 2,048 characters, without path, query or credentials in a path", () => {
    expect(accepts({ endpoint: "http://minio.example.org:9000" })).toBe(true)
    expect(accepts({ endpoint: "https://s3.example.com/" })).toBe(true)
    for (const endpoint of [
      "ftp://s3.example.com",
      "https://s3.example.com/bucket",
      "https://s3.example.com?x=1",
      `https://${"a".repeat(2050)}.com`
    ]) {
      expect(accepts({ endpoint }), endpoint).toBe(false)
    }
  })

  it("follows S3's bucket naming rules", () => {
    for (const bucket of ["abc", "my-bucket.2026", "a".repeat(63)]) expect(accepts({ bucket }), bucket).toBe(true)
    for (const bucket of ["ab", "a".repeat(64), "My_Bucket", "-abc", "abc-"]) {
      expect(accepts({ bucket }), bucket).toBe(false)
    }
  })

  it("bounds the region and the prefix, and keeps a prefix inside the bucket", () => {
    expect(accepts({ region: "auto" })).toBe(true)
    for (const region of ["", "US-EAST-1", "us east", "a".repeat(33)]) expect(accepts({ region }), region).toBe(false)
    for (const prefix of ["", "a/b/", "Shows (2026)/tv"]) expect(accepts({ prefix }), prefix).toBe(true)
    for (const prefix of ["/abs", "a//b", "../up", "a/./b", "a/..", ".hidden", "a\\b", "é", "x".repeat(513)]) {
      expect(accepts({ prefix }), prefix).toBe(false)
    }
  })

  it("bounds the keys: 3-128 and 8-256 printable characters", () => {
    for (const access_key_id of ["ab", "x".repeat(129), "with space"]) expect(accepts({ access_key_id }), access_key_id).toBe(false)
    for (const secret_access_key of ["short", "x".repeat(257), "tab\tinside"]) expect(accepts({ secret_access_key })).toBe(false)
  })

  it("stores a prefix with one trailing slash", () => {
    expect([undefined, "", "a", "a/"].map(normalizedPrefix)).toEqual(["", "", "a/", "a/"])
  })
})

describe("a destination as answers show it", () => {
  it("masks the access key and carries neither the sealed credentials nor a folder's path", () => {
    const s3: Destination = {
      projectId: "prj_a",
      destinationId: "dst_a",
      name: "NAS",
      target: {
        kind: "s3",
        endpoint: "https://s3.example.com",
        bucket: "media",
        region: "us-east-1",
        prefix: "",
        accessKeyHint: "MPLE",
        sealedCredentials: "U0VBTEVE"
      },
      createdBy: "project",
      createdAt: 0,
      removed: false
    }
    const body = toDestinationBody(s3)
    expect(body.access_key_id).toBe("****MPLE")
    expect(JSON.stringify(body)).not.toContain("U0VBTEVE")
    const folder = toDestinationBody({ ...s3, target: { kind: "folder", path: "/srv/library/secret-place" }, createdBy: "operator" })
    expect(folder).toMatchObject({ type: "folder", created_by: "operator", access_key_id: null, endpoint: null })
    expect(JSON.stringify(folder)).not.toContain("secret-place")
  })
})
