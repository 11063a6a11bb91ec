// The admin CLI: webhook set (which event types an endpoint may choose, by default every type) and user project-limit.
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { parseAdminCommand } from "./AdminCommand.ts"

const parse = (...argv: ReadonlyArray<string>) => Effect.runSyncExit(parseAdminCommand(argv))
const base = ["webhook", "set", "--project", "prj_aaaaaaaaaaaaaaaaaaaaaaaa", "--url", "https://example.com/hook"]

describe("webhook set --events", () => {
  it("accepts the subscription events beside the job events", () => {
    expect(parse(...base, "--events", "subscription.entries_queued,subscription.failing")).toEqual(
      Exit.succeed(expect.objectContaining({ _tag: "SetWebhook", events: ["subscription.entries_queued", "subscription.failing"] }))
    )
  })

  it("chooses every event type by default", () => {
    expect(parse(...base)).toEqual(
      Exit.succeed(
        expect.objectContaining({
          events: ["job.completed", "job.failed", "subscription.entries_queued", "subscription.failing"]
        })
      )
    )
  })

  it("refuses an unknown event type", () => {
    expect(Exit.isFailure(parse(...base, "--events", "job.completed,subscription.created"))).toBe(true)
  })
})

describe("user project-limit", () => {
  it("takes a count, unlimited or default for an email", () => {
    expect(parse("user", "project-limit", "Ann@Example.org", "25")).toEqual(
      Exit.succeed({ _tag: "SetUserProjectLimit", email: "ann@example.org", limit: "25" })
    )
    expect(parse("user", "project-limit", "ann@example.org", "unlimited")).toEqual(
      Exit.succeed(expect.objectContaining({ limit: "unlimited" }))
    )
  })

  it("refuses what is no count, and a missing one", () => {
    expect(Exit.isFailure(parse("user", "project-limit", "ann@example.org", "many"))).toBe(true)
    expect(Exit.isFailure(parse("user", "project-limit", "ann@example.org"))).toBe(true)
  })
})

describe("destination add-folder --refresh-type/--refresh-url", () => {
  const folder = ["destination", "add-folder", "--project", "prj_aaaaaaaaaaaaaaaaaaaaaaaa", "--name", "Library", "--path", "/srv/media"]

  it("takes a media server's type and URL (never its token)", () => {
    expect(parse(...folder, "--refresh-type", "plex", "--refresh-url", "http://plex.lan:32400")).toEqual(
      Exit.succeed(expect.objectContaining({ _tag: "AddFolderDestination", refreshType: "plex", refreshUrl: "http://plex.lan:32400" }))
    )
    expect(parse(...folder)).toEqual(Exit.succeed(expect.not.objectContaining({ refreshType: expect.anything() })))
  })

  it("refuses another server type, a URL that is not http(s), and a token as a flag", () => {
    expect(Exit.isFailure(parse(...folder, "--refresh-type", "emby", "--refresh-url", "http://plex.lan:32400"))).toBe(true)
    expect(Exit.isFailure(parse(...folder, "--refresh-type", "plex", "--refresh-url", "ftp://plex.lan"))).toBe(true)
    expect(Exit.isFailure(parse(...folder, "--refresh-token", "secret-token"))).toBe(true)
  })
})
