// Specifications of a destination's library refresh: recorded by its decider (never for a removed one), shown by its
// state, and its timing (at once, one per debounce window, a delivery covered by a later refresh skipped).
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { DestinationDecider } from "./DestinationDecider.ts"
import type { DestinationEvent, LibraryRefreshTarget, S3Target } from "./DestinationEvent.ts"
import { refreshTiming } from "./LibraryRefreshTiming.ts"

const given = DeciderSpecification.for(DestinationDecider)

const s3: S3Target = {
  kind: "s3",
  endpoint: "https://s3.example.com",
  bucket: "media",
  region: "us-east-1",
  prefix: "",
  accessKeyHint: "CDEF",
  sealedCredentials: "c2VhbGVk"
}
const jellyfin: LibraryRefreshTarget = { kind: "jellyfin", url: "http://jellyfin.lan:8096", sealedToken: "dG9rZW4=" }

const created = (refresh?: LibraryRefreshTarget): DestinationEvent => ({
  _tag: "DestinationCreated",
  v: 1,
  projectId: "prj_a",
  destinationId: "dst_a",
  name: "NAS",
  target: s3,
  ...(refresh === undefined ? {} : { refresh }),
  at: 1
})
const refreshed = (at: number, ok = true): DestinationEvent => ({
  _tag: "DestinationLibraryRefreshed",
  v: 1,
  projectId: "prj_a",
  destinationId: "dst_a",
  ok,
  ...(ok ? {} : { error: "refresh_denied" as const }),
  at
})
const removed: DestinationEvent = { _tag: "DestinationRemoved", v: 1, projectId: "prj_a", destinationId: "dst_a", at: 3 }
const stateOf = (events: ReadonlyArray<DestinationEvent>) => foldEvents(DestinationDecider, events)

describe("library refresh of a destination", () => {
  it("a destination is created with its media server", () =>
    given([])
      .when({ _tag: "CreateDestination", projectId: "prj_a", destinationId: "dst_a", name: "NAS", target: s3, refresh: jellyfin, now: 1 })
      .then([created(jellyfin)]))

  it("records a refresh's outcome, ok or its code", () => {
    given([created(jellyfin)])
      .when({ _tag: "RecordLibraryRefresh", projectId: "prj_a", destinationId: "dst_a", ok: true, now: 10 })
      .then([refreshed(10)])
    given([created(jellyfin), refreshed(10)])
      .when({ _tag: "RecordLibraryRefresh", projectId: "prj_a", destinationId: "dst_a", ok: false, error: "refresh_denied", now: 20 })
      .then([refreshed(20, false)])
  })

  it("records nothing for a removed or unknown destination", () => {
    given([created(jellyfin), removed])
      .when({ _tag: "RecordLibraryRefresh", projectId: "prj_a", destinationId: "dst_a", ok: true, now: 10 })
      .thenRejects("DestinationNotFound")
    given([])
      .when({ _tag: "RecordLibraryRefresh", projectId: "prj_a", destinationId: "dst_a", ok: true, now: 10 })
      .thenRejects("DestinationNotFound")
  })

  it("the state keeps the media server and the last refresh", () => {
    const state = stateOf([created(jellyfin), refreshed(10), refreshed(20, false)])
    expect(state?.refresh).toEqual(jellyfin)
    expect(state?.lastRefresh).toEqual({ at: 20, ok: false, error: "refresh_denied" })
  })

  describe("timing (debounce 60 s)", () => {
    const window = 60_000
    it("skips a destination without a media server, or removed", () => {
      expect(refreshTiming(stateOf([created()]), 5, 5, window)).toEqual({ _tag: "Skip" })
      expect(refreshTiming(stateOf([created(jellyfin), removed]), 5, 5, window)).toEqual({ _tag: "Skip" })
      expect(refreshTiming(null, 5, 5, window)).toEqual({ _tag: "Skip" })
    })
    it("calls at once for the first delivery", () => {
      expect(refreshTiming(stateOf([created(jellyfin)]), 5, 6, window)).toEqual({ _tag: "Call" })
    })
    it("a delivery inside the window waits for its end; after it, calls", () => {
      const state = stateOf([created(jellyfin), refreshed(1_000)])
      expect(refreshTiming(state, 2_000, 2_500, window)).toEqual({ _tag: "Wait", until: 61_000 })
      expect(refreshTiming(state, 2_000, 61_000, window)).toEqual({ _tag: "Call" })
    })
    it("a burst is one refresh: once the window's refresh is recorded, every delivery before it is covered", () => {
      const state = stateOf([created(jellyfin), refreshed(1_000), refreshed(61_000)])
      for (const deliveredAt of [2_000, 30_000, 60_999]) expect(refreshTiming(state, deliveredAt, 61_001, window)).toEqual({ _tag: "Skip" })
    })
  })
})
