// Type-checked by TestTypeScriptTypes (tsc --strict) beside api.d.ts, the
// types openapi-typescript generates from the document, and sesame.ts, what
// Sesame's own code answered, typed by them.
import type { components, operations } from "./api";

type Schemas = components["schemas"];

// The rule ids and severities are closed sets, not any string.
export const severity: Schemas["DeliverabilityFinding"]["severity"] = "critical";
// @ts-expect-error: not a rule of the check
export const unknownRule: Schemas["DeliverabilityFinding"]["id"] = "no_such_rule";

// A filter's value is a string, a number, a boolean or a list of them.
export const values: NonNullable<Schemas["FilterCondition"]["value"]>[] = ["pro", 2.5, true, ["pro", 2.5, true]];
// @ts-expect-error: never an object
export const nested: Schemas["PropertyValue"] = { plan: "pro" };
// @ts-expect-error: never null (null removes a property in a request)
export const none: Schemas["PropertyValue"] = null;

// The webhooks' headers are typed from the components only they use.
export const bounced: operations["onEmailBounced"]["parameters"]["header"] = {
  "X-Service-Signature": "t=1,v1=00",
  "X-Service-Event-Id": "e",
  "X-Service-Event-Type": "email.bounced",
};
