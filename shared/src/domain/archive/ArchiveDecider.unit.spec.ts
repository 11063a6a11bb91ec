// Specifications of the download archive: one claim records an entry; its retry still owns it; another claim does not.
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { ArchiveDecider, ownsEntry } from "./ArchiveDecider.ts"
import type { ArchiveEvent } from "./ArchiveEvent.ts"

const given = DeciderSpecification.for(ArchiveDecider)
const claim = { projectId: "prj_a", archiveKey: "vimeo 1", subscriptionId: "sub_a", claimId: "sub_a@1000" } as const
const recorded: ArchiveEvent = { _tag: "ArchiveEntryRecorded", v: 1, ...claim, at: 1_000 }

describe("ArchiveDecider", () => {
  it("records an entry not in the archive, for the claim that asked", () => {
    given([])
      .when({ _tag: "RecordArchiveEntry", ...claim, now: 1_000 })
      .then([recorded])
    expect(ownsEntry(foldEvents(ArchiveDecider, [recorded]), claim.claimId)).toBe(true)
  })

  it("an entry already recorded is recorded by nobody else: another subscription's claim does not own it", () => {
    given([recorded])
      .when({ _tag: "RecordArchiveEntry", ...claim, subscriptionId: "sub_b", claimId: "sub_b@2000", now: 2_000 })
      .thenNothing()
    expect(ownsEntry(foldEvents(ArchiveDecider, [recorded]), "sub_b@2000")).toBe(false)
  })

  it("a retry of the recording claim (a restart in the middle of a check) still owns it", () => {
    given([recorded])
      .when({ _tag: "RecordArchiveEntry", ...claim, now: 1_500 })
      .thenNothing()
    expect(ownsEntry(foldEvents(ArchiveDecider, [recorded]), claim.claimId)).toBe(true)
  })
})
