// The admin CLI's webhook set: which event types an endpoint may choose, and the default (every type).
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
