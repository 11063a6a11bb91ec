// The account aggregates' command handlers (project, key, user), each bound once with its deduplication rule.
import { commandHandler, forSubject } from "../../eventstore/CommandHandler.ts"
import { keySubject, projectSubject, userSubject } from "../../eventstore/Subjects.ts"
import { KeyEvent, ProjectEvent, UserEvent } from "./AccountEvent.ts"
import { KeyDecider } from "./KeyDecider.ts"
import { ProjectDecider } from "./ProjectDecider.ts"
import { UserDecider } from "./UserDecider.ts"

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

/** Created once; a password changes at a time. */
const handleUser = commandHandler({
  decider: UserDecider,
  codec: UserEvent,
  msgId: (event) => (event._tag === "UserCreated" ? `${event._tag}:${event.userId}` : `${event._tag}:${event.userId}:${event.at}`)
})

export const projectCommands = forSubject(handleProject, projectSubject)
export const keyCommands = forSubject(handleKey, keySubject)
export const userCommands = forSubject(handleUser, userSubject)
