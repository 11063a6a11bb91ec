// Given a project's cookie-file facts, then the files it has now: the latest per platform, a removed one gone.
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import type { CookieJarEvent } from "./CookieJarEvent.ts"
import { CookieJarsFold, cookieJarList } from "./CookieJars.ts"

const facts = (platform: string, at: number) =>
  ({ v: 1, projectId: "prj_a", platform, domains: [`.${platform}.com`], cookieCount: 2, expiresAt: null, at }) as const
const uploaded = (platform: string, at: number): CookieJarEvent => ({ _tag: "CookiesUploaded", ...facts(platform, at) })
const rotated = (platform: string, at: number): CookieJarEvent => ({ _tag: "CookiesRotated", ...facts(platform, at) })
const removed = (platform: string, at: number): CookieJarEvent => ({ _tag: "CookiesRemoved", v: 1, projectId: "prj_a", platform, at })

const jars = (events: ReadonlyArray<CookieJarEvent>) => cookieJarList(foldEvents(CookieJarsFold, events))

describe("a project's cookie files", () => {
  it("are the latest change of each platform, by platform name", () => {
    expect(jars([uploaded("youtube", 1), uploaded("vimeo", 2), rotated("youtube", 3)])).toEqual([
      { platform: "vimeo", domains: [".vimeo.com"], cookieCount: 2, expiresAt: null, updatedAt: 2, change: "uploaded" },
      { platform: "youtube", domains: [".youtube.com"], cookieCount: 2, expiresAt: null, updatedAt: 3, change: "rotated" }
    ])
  })

  it("leave out a platform whose file was removed, until one is uploaded again", () => {
    expect(jars([uploaded("youtube", 1), removed("youtube", 2)])).toEqual([])
    expect(jars([uploaded("youtube", 1), removed("youtube", 2), uploaded("youtube", 3)]).map((jar) => jar.updatedAt)).toEqual([3])
  })
})
