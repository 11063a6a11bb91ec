// Checks a request schema makes that its OpenAPI document cannot show (a real calendar day, one field at most another):
// a body that fails only such a check matches the document, so the gateway answers it 422 invalid_options, never the
// 400 of a body the document itself refuses.
import { Schema, type SchemaIssue } from "effect"

const BEYOND_THE_DOCUMENT = "beyondTheDocument"

/** A filter the OpenAPI document cannot express (it shows no JSON Schema keyword for it). */
export const beyondTheDocument = <T>(check: (input: T) => Schema.FilterOutput) =>
  Schema.makeFilter<T>((input) => check(input), { [BEYOND_THE_DOCUMENT]: true })

/** Whether every failure in the issue is a check of `beyondTheDocument`: the body matched everything the document shows. */
export const failsOnlyBeyondTheDocument = (issue: SchemaIssue.Issue): boolean => {
  switch (issue._tag) {
    case "Filter":
      return issue.filter.annotations?.[BEYOND_THE_DOCUMENT] === true
    case "Pointer":
    case "Encoding":
      return failsOnlyBeyondTheDocument(issue.issue)
    case "Composite":
      return issue.issues.every(failsOnlyBeyondTheDocument)
    default:
      return false
  }
}
