// Given account events with their sequences, then the project and key documents the read models hold.
import { describe, expect, it } from "vitest"
import type { KeyEvent, ProjectEvent } from "./AccountEvent.ts"
import { evolveKeyRecord, evolveProjectView, type KeyRecord, type ProjectView } from "./AccountViews.ts"

const foldProject = (events: ReadonlyArray<readonly [number, ProjectEvent]>) =>
  events.reduce<ProjectView | null>((doc, [seq, event]) => evolveProjectView(doc, event, seq), null)
const foldKey = (events: ReadonlyArray<readonly [number, KeyEvent]>) =>
  events.reduce<KeyRecord | null>((doc, [seq, event]) => evolveKeyRecord(doc, event, seq), null)

const ann = { userId: "usr_ann", email: "ann@example.org" }
const created: ProjectEvent = { _tag: "ProjectCreated", v: 1, projectId: "prj_a", name: "Demo", owner: ann, at: 5 }
const renamed: ProjectEvent = { _tag: "ProjectRenamed", v: 1, projectId: "prj_a", name: "Renamed", at: 6 }
const bobJoined: ProjectEvent = { _tag: "ProjectMemberAdded", v: 1, projectId: "prj_a", userId: "usr_bob", email: "bob@example.org", at: 7 }
const keyCreated: KeyEvent = {
  _tag: "KeyCreated",
  v: 1,
  keyId: "key_1",
  projectId: "prj_a",
  name: "ci",
  environment: "live",
  scopes: ["media:resolve"],
  hash: "secret-hash",
  prefix: "svc_live_Ab3x",
  at: 10
}
const keyRevoked: KeyEvent = { _tag: "KeyRevoked", v: 1, keyId: "key_1", projectId: "prj_a", at: 20 }

describe("evolveProjectView", () => {
  it("folds creation, rename and members", () => {
    expect(
      foldProject([
        [1, created],
        [2, renamed],
        [3, bobJoined]
      ])
    ).toEqual({
      projectId: "prj_a",
      name: "Renamed",
      createdAt: 5,
      members: [ann, { userId: "usr_bob", email: "bob@example.org" }],
      lastSeq: 3
    })
  })
  it("a redelivered event changes nothing; a member is listed once", () => {
    const once = foldProject([
      [1, created],
      [3, bobJoined]
    ])
    expect(
      foldProject([
        [1, created],
        [3, bobJoined],
        [3, bobJoined],
        [2, renamed]
      ])
    ).toEqual(once)
    expect(
      foldProject([
        [1, created],
        [3, bobJoined],
        [4, bobJoined]
      ])?.members
    ).toHaveLength(2)
  })
  it("events of a project never created have nothing to attach to", () => {
    expect(
      foldProject([
        [2, renamed],
        [3, bobJoined]
      ])
    ).toBeNull()
  })
})

describe("evolveKeyRecord", () => {
  it("holds what a list may show and never the hash", () => {
    const doc = foldKey([[1, keyCreated]])
    expect(doc).toEqual({
      keyId: "key_1",
      projectId: "prj_a",
      name: "ci",
      environment: "live",
      scopes: ["media:resolve"],
      prefix: "svc_live_Ab3x",
      createdAt: 10,
      revokedAt: null,
      lastSeq: 1
    })
    expect(JSON.stringify(doc)).not.toContain("secret-hash")
  })
  it("revocation is recorded once, at its first time", () => {
    expect(
      foldKey([
        [1, keyCreated],
        [2, keyRevoked],
        [3, { ...keyRevoked, at: 99 }]
      ])?.revokedAt
    ).toBe(20)
    expect(foldKey([[2, keyRevoked]])).toBeNull()
  })
})
