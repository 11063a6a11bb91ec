// Specifications of the project aggregate: created once.
import { describe, it } from "vitest"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { ProjectDecider } from "./ProjectDecider.ts"

const given = DeciderSpecification.for(ProjectDecider)
const create = { _tag: "CreateProject", projectId: "prj_a", name: "Demo", now: 5 } as const

describe("ProjectDecider", () => {
  it("creates a project", () =>
    given([]).when(create).then([{ _tag: "ProjectCreated", v: 1, projectId: "prj_a", name: "Demo", at: 5 }]))
  it("rejects creating it twice", () =>
    given([{ _tag: "ProjectCreated", v: 1, projectId: "prj_a", name: "Demo", at: 5 }]).when(create).thenRejects(
      "ProjectAlreadyExists"
    ))
})
