// Specifications of the project aggregate: created once, renamed, joined by members once each.
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import type { ProjectEvent } from "./AccountEvent.ts"
import { isProjectMember, ProjectDecider } from "./ProjectDecider.ts"
import { type ProjectQuotas, quotaLimits } from "./ProjectQuotas.ts"

const given = DeciderSpecification.for(ProjectDecider)
const ann = { userId: "usr_ann", email: "ann@example.org" }
const bob = { userId: "usr_bob", email: "bob@example.org" }
const create = { _tag: "CreateProject", projectId: "prj_a", name: "Demo", owner: null, now: 5 } as const
const created: ProjectEvent = { _tag: "ProjectCreated", v: 1, projectId: "prj_a", name: "Demo", at: 5 }
const createdByAnn: ProjectEvent = { ...created, owner: ann }

describe("ProjectDecider", () => {
  it("creates a project without members (admin CLI)", () => given([]).when(create).then([created]))
  it("creates a project with its creator as first member (dashboard)", () =>
    given([])
      .when({ ...create, owner: ann })
      .then([createdByAnn]))
  it("rejects creating it twice", () => given([created]).when(create).thenRejects("ProjectAlreadyExists"))

  it("renames a project", () =>
    given([created])
      .when({ _tag: "RenameProject", projectId: "prj_a", name: "Renamed", now: 9 })
      .then([{ _tag: "ProjectRenamed", v: 1, projectId: "prj_a", name: "Renamed", at: 9 }]))
  it("renaming to the current name is a no-op", () =>
    given([created]).when({ _tag: "RenameProject", projectId: "prj_a", name: "Demo", now: 9 }).thenNothing())
  it("rejects renaming an unknown project", () =>
    given([]).when({ _tag: "RenameProject", projectId: "prj_a", name: "X", now: 9 }).thenRejects("ProjectNotFound"))

  it("adds a member once", () => {
    given([createdByAnn])
      .when({ _tag: "AddProjectMember", projectId: "prj_a", member: bob, now: 7 })
      .then([{ _tag: "ProjectMemberAdded", v: 1, projectId: "prj_a", userId: "usr_bob", email: "bob@example.org", at: 7 }])
    given([createdByAnn]).when({ _tag: "AddProjectMember", projectId: "prj_a", member: ann, now: 7 }).thenNothing()
  })
  it("rejects adding a member to an unknown project", () =>
    given([]).when({ _tag: "AddProjectMember", projectId: "prj_a", member: bob, now: 7 }).thenRejects("ProjectNotFound"))

  it("membership follows the events; the last rename wins", () => {
    const events: ReadonlyArray<ProjectEvent> = [
      createdByAnn,
      { _tag: "ProjectRenamed", v: 1, projectId: "prj_a", name: "Two", at: 6 },
      { _tag: "ProjectMemberAdded", v: 1, projectId: "prj_a", userId: "usr_bob", email: "bob@example.org", at: 7 }
    ]
    const state = foldEvents(ProjectDecider, events)
    expect(state.name).toBe("Two")
    expect(isProjectMember(state, "usr_ann")).toBe(true)
    expect(isProjectMember(state, "usr_bob")).toBe(true)
    expect(isProjectMember(state, "usr_eve")).toBe(false)
    expect(isProjectMember(foldEvents(ProjectDecider, [created]), "usr_ann")).toBe(false)
  })
})

describe("ProjectDecider: quotas", () => {
  const setQuota = (quotas: Partial<ProjectQuotas>) => ({ _tag: "SetProjectQuota", projectId: "prj_a", quotas, now: 11 }) as const
  const limited: ProjectEvent = { _tag: "ProjectQuotaSet", v: 1, projectId: "prj_a", jobsPerDay: 500, bytesPerMonth: 1024, at: 11 }

  it("sets the quotas given", () =>
    given([created])
      .when(setQuota({ jobsPerDay: 500, bytesPerMonth: 1024 }))
      .then([limited]))
  it("records only the quota that changes", () =>
    given([created, limited])
      .when(setQuota({ jobsPerDay: 500, bytesPerMonth: "unlimited" }))
      .then([{ _tag: "ProjectQuotaSet", v: 1, projectId: "prj_a", bytesPerMonth: "unlimited", at: 11 }]))
  it("setting the quotas it has is a no-op", () =>
    given([created, limited])
      .when(setQuota({ jobsPerDay: 500 }))
      .thenNothing())
  it("rejects quotas for an unknown project", () =>
    given([])
      .when(setQuota({ jobsPerDay: 1 }))
      .thenRejects("ProjectNotFound"))
  it("a quota left at default follows the server's setting; unlimited ignores it", () => {
    const state = foldEvents(ProjectDecider, [
      created,
      { _tag: "ProjectQuotaSet", v: 1, projectId: "prj_a", jobsPerDay: "unlimited", at: 12 }
    ])
    expect(quotaLimits(state.quotas, { jobsPerDay: 100, bytesPerMonth: 2048 })).toEqual({ jobsPerDay: null, bytesPerMonth: 2048 })
  })
})
