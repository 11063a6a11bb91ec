// Checks real responses against the served OpenAPI document: status documented, body valid against its JSON Schema.
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"

type Json = Record<string, any>

export interface ResponseCheck {
  readonly method: string
  /** The OpenAPI path template, e.g. `/v1/jobs/{jobId}`. */
  readonly path: string
  readonly status: number
  readonly body: unknown
}

export interface OpenApiConformance {
  /** Returns the problems (an empty list when the response conforms). */
  problems(check: ResponseCheck): ReadonlyArray<string>
}

export const openApiConformance = (document: Json): OpenApiConformance => {
  // strict off: OpenAPI documents carry keywords (components, x-*) that are not JSON Schema vocabulary.
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats.default(ajv)
  const validators = new Map<string, ReturnType<typeof ajv.compile>>()
  return {
    problems: ({ method, path, status, body }) => {
      const operation = document.paths?.[path]?.[method.toLowerCase()]
      if (operation === undefined) return [`${method} ${path} is not in the document`]
      const response = operation.responses?.[String(status)]
      if (response === undefined) return [`${method} ${path} does not document status ${status}`]
      const schema = response.content?.["application/json"]?.schema
      if (schema === undefined) return []
      const id = `${method} ${path} ${status}`
      let validate = validators.get(id)
      if (validate === undefined) {
        validate = ajv.compile({ ...schema, components: document.components })
        validators.set(id, validate)
      }
      return validate(body) ? [] : (validate.errors ?? []).map((error) => `${id}: ${error.instancePath} ${error.message}`)
    }
  }
}
