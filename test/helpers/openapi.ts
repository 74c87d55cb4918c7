/**
 * The service's OpenAPI document as tests read it: the top level typed, each operation left as
 * open JSON (`any`), since tests walk it as JSON Schema, whose shape is open-ended.
 */
export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, Record<string, any>>;
  components?: Record<string, any>;
  security?: unknown[];
}
