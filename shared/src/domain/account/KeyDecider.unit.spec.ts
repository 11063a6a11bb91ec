// Specifications of the API key aggregate: created once, revoked once.
import { describe, it } from "vitest"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import type { KeyEvent } from "./AccountEvent.ts"
import { KeyDecider } from "./KeyDecider.ts"

const given = DeciderSpecification.for(KeyDecider)
const create = {
  _tag: "CreateKey",
  keyId: "key_1",
  projectId: "prj_a",
  name: "ci",
  environment: "test",
  scopes: ["media:resolve", "media:resolve", "media:download"],
  hash: "abc",
  prefix: "svc_test_ab",
  now: 10
} as const
const created: KeyEvent = {
  _tag: "KeyCreated",
  v: 1,
  keyId: "key_1",
  projectId: "prj_a",
  name: "ci",
  environment: "test",
  scopes: ["media:resolve", "media:download"],
  hash: "abc",
  prefix: "svc_test_ab",
  at: 10
}
const revoke = { _tag: "RevokeKey", keyId: "key_1", projectId: null, now: 20 } as const

describe("KeyDecider", () => {
  it("creates a key with de-duplicated scopes", () => given([]).when(create).then([created]))
  it("rejects creating the same key twice", () => given([created]).when(create).thenRejects("ApiKeyAlreadyExists"))
  it("revokes a key, naming its project", () =>
    given([created])
      .when(revoke)
      .then([{ _tag: "KeyRevoked", v: 1, keyId: "key_1", projectId: "prj_a", at: 20 }]))
  it("revoking twice is a no-op", () =>
    given([created, { _tag: "KeyRevoked", v: 1, keyId: "key_1", projectId: "prj_a", at: 20 }])
      .when(revoke)
      .thenNothing())
  it("revokes a key from within its own project", () =>
    given([created])
      .when({ ...revoke, projectId: "prj_a" })
      .then([{ _tag: "KeyRevoked", v: 1, keyId: "key_1", projectId: "prj_a", at: 20 }]))
  it("a key of another project is not found there", () =>
    given([created])
      .when({ ...revoke, projectId: "prj_b" })
      .thenRejects("ApiKeyNotFound"))
  it("rejects revoking an unknown key", () => given([]).when(revoke).thenRejects("ApiKeyNotFound"))
})
