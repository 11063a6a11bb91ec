// A kind of subject defined once: how one is built from its ids, how one is read back, and the filters over the kind.
import { Effect, Option } from "effect"

/** The ids a subject of the kind names, by the names of its parts: `{ projectId, jobId }`. */
export type SubjectIds<Parts extends ReadonlyArray<string>> = { readonly [P in Parts[number]]: string }

/** One string per part, in order. */
export type SubjectTokens<Parts extends ReadonlyArray<string>> = { readonly [I in keyof Parts]: string }

/** The leading ids a filter may fix: every strict prefix of the parts (none of them, the first, the first two, ...). */
export type LeadingTokens<T extends ReadonlyArray<string>> = T extends readonly [...infer Init extends ReadonlyArray<string>, string]
  ? Init | LeadingTokens<Init>
  : never

/**
 * `mds.job.<projectId>.<jobId>` as a value: call it with the ids to build a subject, `parse` one back, `all` and
 * `within` for the filters of consumers, listings and reads, `pattern` for the event catalogue.
 *
 * The one rule for a malformed subject: `parse` answers None for any subject that is not exactly the prefix followed by
 * one non-empty token per part (no more, no fewer, no wildcard), and never guesses ids from it. A consumer handed a
 * message on such a subject steps over it: it acknowledges the message (it never comes again) and logs
 * `stepOverSubject`; a follower (no acknowledgement) skips it as it skips an undecodable message; a listing leaves
 * it out. Ids hold no `.` (they would add tokens): every id here is generated or, for the yt-dlp worker, encoded.
 */
export interface SubjectKind<Parts extends ReadonlyArray<string>> {
  (...ids: SubjectTokens<Parts>): string
  /** The tokens before the ids: `mds.job`. */
  readonly prefix: string
  readonly parts: Parts
  /** How the documentation writes the kind: `mds.job.<projectId>.<jobId>`. */
  readonly pattern: string
  /** The filter of every subject of the kind: `mds.job.>`. */
  readonly all: string
  /**
   * The filter of the subjects under the leading ids given: `within(projectId)` is `mds.job.<projectId>.*` (one part
   * left: `*`, several: `>`).
   */
  readonly within: (...leading: LeadingTokens<SubjectTokens<Parts>>) => string
  /** The ids of a subject of the kind; None for any other subject (see above). */
  readonly parse: (subject: string) => Option.Option<SubjectIds<Parts>>
}

export interface SubjectKindOptions {
  /** Makes an id fit a subject token (the yt-dlp worker's id holds characters subjects cannot); the identity unless given. */
  readonly encode?: (id: string) => string
}

const isToken = (token: string) => token !== "" && token !== "*" && token !== ">"

export const subjectKind = <const Parts extends ReadonlyArray<string>>(
  prefix: string,
  parts: Parts,
  options: SubjectKindOptions = {}
): SubjectKind<Parts> => {
  const encode = options.encode ?? ((id: string) => id)
  const prefixTokens = prefix.split(".")
  const build = (...ids: SubjectTokens<Parts>) => [prefix, ...(ids as ReadonlyArray<string>).map(encode)].join(".")
  const within = (...leading: ReadonlyArray<string>) =>
    [prefix, ...leading.map(encode), parts.length - leading.length === 1 ? "*" : ">"].join(".")
  const parse = (subject: string): Option.Option<SubjectIds<Parts>> => {
    const tokens = subject.split(".")
    if (tokens.length !== prefixTokens.length + parts.length) return Option.none()
    for (let i = 0; i < prefixTokens.length; i++) if (tokens[i] !== prefixTokens[i]) return Option.none()
    const ids: Record<string, string> = {}
    for (let i = 0; i < parts.length; i++) {
      const token = tokens[prefixTokens.length + i]!
      if (!isToken(token)) return Option.none()
      ids[parts[i]!] = token
    }
    return Option.some(ids as SubjectIds<Parts>)
  }
  return Object.assign(build, {
    prefix,
    parts,
    pattern: [prefix, ...parts.map((part) => `<${part}>`)].join("."),
    all: `${prefix}.>`,
    within: within as SubjectKind<Parts>["within"],
    parse
  })
}

/** The log of the rule above: a consumer acknowledges a message whose subject is not of its kind, and says so. */
export const stepOverSubject = (consumer: string, subject: string) =>
  Effect.logWarning("message on a subject its consumer does not read; stepped over").pipe(Effect.annotateLogs({ consumer, subject }))
