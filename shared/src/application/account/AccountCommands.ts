// The account aggregates' command handlers (project, key, user), each bound once with its deduplication rule, and their
// read doors.
import { commandHandler, forSubject, replayAggregate } from "../../eventstore/CommandHandler.ts"
import { keySubject, projectSubject, userSubject } from "../../nats/Subjects.ts"
import { KeyEvent, ProjectEvent, UserEvent } from "../../domain/account/AccountEvent.ts"
import { KeyDecider } from "../../domain/account/KeyDecider.ts"
import { ProjectDecider } from "../../domain/account/ProjectDecider.ts"
import { UserDecider } from "../../domain/account/UserDecider.ts"

/** Created once, renamed at a time, a member added once. */
const handleProject = commandHandler({
  decider: ProjectDecider,
  codec: ProjectEvent,
  msgId: (event) => {
    switch (event._tag) {
      case "ProjectCreated":
        return `${event._tag}:${event.projectId}`
      case "ProjectRenamed":
        return `${event._tag}:${event.projectId}:${event.at}`
      case "ProjectMemberAdded":
        return `${event._tag}:${event.projectId}:${event.userId}`
      case "ProjectQuotaSet":
        return `${event._tag}:${event.projectId}:${event.at}`
    }
  }
})

/** A key is created once and revoked once. */
const handleKey = commandHandler({ decider: KeyDecider, codec: KeyEvent, msgId: (event) => `${event._tag}:${event.keyId}` })

/** Created once; a password or the project limit changes at a time; a project is claimed and released once. */
const handleUser = commandHandler({
  decider: UserDecider,
  codec: UserEvent,
  msgId: (event) => {
    switch (event._tag) {
      case "UserCreated":
        return `${event._tag}:${event.userId}`
      case "UserProjectClaimed":
      case "UserProjectReleased":
        return `${event._tag}:${event.userId}:${event.projectId}`
      case "UserPasswordChanged":
      case "UserProjectLimitSet":
        return `${event._tag}:${event.userId}:${event.at}`
    }
  }
})

export const projectCommands = forSubject(handleProject, projectSubject)
export const keyCommands = forSubject(handleKey, keySubject)
export const userCommands = forSubject(handleUser, userSubject)

/** A project's state: its subject's few events (created, renamed, joined, limited) folded. */
export const currentProject = (projectId: string) => replayAggregate(ProjectDecider, ProjectEvent, projectSubject(projectId))
export const currentKey = (keyId: string) => replayAggregate(KeyDecider, KeyEvent, keySubject(keyId))
export const currentUser = (userId: string) => replayAggregate(UserDecider, UserEvent, userSubject(userId))
