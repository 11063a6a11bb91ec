// Given where sign-in should return to, then only a dashboard page of this site is kept: never another origin or scheme.
import { describe, expect, it } from "vitest"
import { returnPathOf, signInPath } from "./ReturnPath.ts"

describe("returnPathOf", () => {
  it.each(["/dashboard/share?url=https%3A%2F%2Fa.example%2Fv", "/dashboard/projects/prj_x/jobs", "/dashboard"])("keeps %s", (path) =>
    expect(returnPathOf(path)).toBe(path)
  )
  it.each([
    "https://evil.example/dashboard",
    "//evil.example/dashboard",
    "/\\evil.example/dashboard",
    "/dashboardx",
    "/v1/jobs",
    "/dashboard/login?next=/dashboard",
    "javascript:alert(1)",
    42
  ])("refuses %s", (raw) => expect(returnPathOf(raw)).toBeNull())
  it("normalises dot segments before judging", () => expect(returnPathOf("/dashboard/../v1/health")).toBeNull())
})

describe("signInPath", () => {
  it("carries a dashboard page along", () =>
    expect(signInPath("/dashboard/share?url=x")).toBe("/dashboard/login?next=%2Fdashboard%2Fshare%3Furl%3Dx"))
  it("the bare sign-in page for the project list or anything else", () => {
    expect(signInPath("/dashboard")).toBe("/dashboard/login")
    expect(signInPath("//evil.example")).toBe("/dashboard/login")
  })
})
