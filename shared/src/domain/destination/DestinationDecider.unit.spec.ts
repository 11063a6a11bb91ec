// Specifications of the destination aggregate (created by a project, given by the operator, removed) and of a
// project's listing.
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { DestinationDecider } from "./DestinationDecider.ts"
import type { DestinationEvent, S3Target } from "./DestinationEvent.ts"
import { DestinationListFold, listedDestinations } from "./DestinationList.ts"

const given = DeciderSpecification.for(DestinationDecider)

const s3: S3Target = {
  kind: "s3",
  endpoint: "https://s3.example.com",
  bucket: "media",
  region: "us-east-1",
  prefix: "library/",
  accessKeyHint: "CDEF",
  sealedCredentials: "c2VhbGVk"
}

const created = (destinationId = "dst_a", at = 1, projectId = "prj_a"): DestinationEvent => ({
  _tag: "DestinationCreated",
  v: 1,
  projectId,
  destinationId,
  name: "NAS",
  target: s3,
  at
})
const assigned = (destinationId = "dst_f", at = 2): DestinationEvent => ({
  _tag: "FolderDestinationAssigned",
  v: 1,
  projectId: "prj_a",
  destinationId,
  name: "Library",
  target: { kind: "folder", path: "/srv/media/a" },
  at
})
const removed = (destinationId = "dst_a", at = 3): DestinationEvent => ({
  _tag: "DestinationRemoved",
  v: 1,
  projectId: "prj_a",
  destinationId,
  at
})

describe("DestinationDecider", () => {
  it("creates an S3 destination", () =>
    given([])
      .when({ _tag: "CreateDestination", projectId: "prj_a", destinationId: "dst_a", name: "NAS", target: s3, now: 1 })
      .then([created()]))

  it("a repeat of the creation (a retried append) creates nothing more", () =>
    given([created()])
      .when({ _tag: "CreateDestination", projectId: "prj_a", destinationId: "dst_a", name: "NAS", target: s3, now: 5 })
      .thenNothing())

  it("the operator assigns a folder", () =>
    given([])
      .when({
        _tag: "AssignFolderDestination",
        projectId: "prj_a",
        destinationId: "dst_f",
        name: "Library",
        target: { kind: "folder", path: "/srv/media/a" },
        now: 2
      })
      .then([assigned()]))

  it("removes a live destination", () =>
    given([created()]).when({ _tag: "RemoveDestination", projectId: "prj_a", destinationId: "dst_a", now: 3 }).then([removed()]))

  it("refuses to remove one that is unknown, already removed or of another project", () => {
    given([]).when({ _tag: "RemoveDestination", projectId: "prj_a", destinationId: "dst_a", now: 3 }).thenRejects("DestinationNotFound")
    given([created(), removed()])
      .when({ _tag: "RemoveDestination", projectId: "prj_a", destinationId: "dst_a", now: 4 })
      .thenRejects("DestinationNotFound")
    given([created("dst_a", 1, "prj_b")])
      .when({ _tag: "RemoveDestination", projectId: "prj_a", destinationId: "dst_a", now: 4 })
      .thenRejects("DestinationNotFound")
  })

  it("a removed destination stays removed when its creation is folded again", () => {
    const state = foldEvents(DestinationDecider, [created(), removed(), created()])
    expect(state?.removed).toBe(true)
  })
})

describe("a project's destination list", () => {
  it("lists the live ones oldest first, with who made them", () => {
    const list = foldEvents(DestinationListFold, [assigned("dst_f", 2), created("dst_a", 1), created("dst_b", 4), removed("dst_b", 5)])
    expect(listedDestinations(list).map((d) => [d.destinationId, d.createdBy])).toEqual([
      ["dst_a", "project"],
      ["dst_f", "operator"]
    ])
  })
})
