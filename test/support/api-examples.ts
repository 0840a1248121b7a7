/**
 * A contract tester over an OpenAPI document's examples, as dredd or Schemathesis's example phase
 * would run it: each operation's request made from the document alone (its path parameters'
 * examples, its header parameters' examples, its request body's example, a credential its security
 * names), to be sent to the server and its answer checked against the document (api-conformance.ts).
 */
type Json = Record<string, unknown>;

interface ParameterDoc {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  example?: unknown;
}

interface OperationDoc {
  operationId: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: ParameterDoc[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
}

export interface ExampleRequest {
  operationId: string;
  method: string;
  /** The path with its parameters filled in from their examples. */
  path: string;
  headers: Record<string, string>;
  /** The request body's example, as JSON text. */
  body?: string;
  /** Its success is an event stream: read the head of the answer only. */
  stream: boolean;
}

export interface ExampleOptions {
  /** A bearer token for each security scheme the tester holds (merchantKey, operatorToken, ...). */
  credentials: Record<string, string>;
  /** The Origin a browser operation is sent from (one the server allows). */
  browserOrigin: string;
  /** The tag of operations a browser calls. */
  browserTag: string;
}

/**
 * Every operation of the document as an example request; `missing` says what the document leaves a
 * tester to guess (a path parameter or a body without an example, a security it cannot meet).
 */
export function exampleRequests(
  document: { paths: Record<string, Record<string, Json>> },
  options: ExampleOptions,
): { requests: ExampleRequest[]; missing: string[] } {
  const requests: ExampleRequest[] = [];
  const missing: string[] = [];
  for (const [template, methods] of Object.entries(document.paths)) {
    for (const [method, raw] of Object.entries(methods)) {
      const operation = raw as unknown as OperationDoc;
      const { operationId } = operation;
      const parameters = operation.parameters ?? [];
      let path = template;
      for (const name of [...template.matchAll(/\{(\w+)\}/g)].map(([, found]) => found!)) {
        const example = parameters.find((parameter) => parameter.in === 'path' && parameter.name === name)?.example;
        if (typeof example !== 'string' || example === '') missing.push(`${operationId}: path parameter ${name}`);
        else path = path.replace(`{${name}}`, encodeURIComponent(example));
      }
      const headers: Record<string, string> = {};
      for (const parameter of parameters.filter((candidate) => candidate.in === 'header')) {
        if (typeof parameter.example === 'string') headers[parameter.name] = parameter.example;
        else if (parameter.required) missing.push(`${operationId}: header ${parameter.name}`);
      }
      const security = operation.security ?? [];
      // The first alternative the tester can meet: none at all ({}), or a scheme it holds a token for.
      const met = security.find((alternative) =>
        Object.keys(alternative).every((scheme) => options.credentials[scheme] !== undefined),
      );
      if (security.length && !met) missing.push(`${operationId}: a credential for ${JSON.stringify(security)}`);
      const scheme = met && Object.keys(met)[0];
      if (scheme) headers.Authorization = `Bearer ${options.credentials[scheme]}`;
      if (operation.tags?.includes(options.browserTag)) headers.Origin = options.browserOrigin;
      let body: string | undefined;
      if (operation.requestBody) {
        const json = operation.requestBody.content['application/json'];
        if (json?.example === undefined) missing.push(`${operationId}: request body`);
        else {
          body = JSON.stringify(json.example);
          headers['Content-Type'] = 'application/json';
        }
      }
      const success = Object.entries(operation.responses).find(([status]) => status.startsWith('2'))?.[1];
      requests.push({
        operationId,
        method: method.toUpperCase(),
        path,
        headers,
        ...(body === undefined ? {} : { body }),
        stream: Object.keys(success?.content ?? {}).includes('text/event-stream'),
      });
    }
  }
  return { requests, missing };
}
