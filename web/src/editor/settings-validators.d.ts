// The validators web/settingsValidatorsPlugin.ts compiles from the settings schemas at build time.
declare module 'virtual:settings-validators' {
  import type { ErrorObject } from 'ajv';

  export interface CompiledValidator {
    (value: unknown): boolean;
    errors?: ErrorObject[] | null;
  }
  export const ai_settings: CompiledValidator;
  export const email_settings: CompiledValidator;
  export const widget: CompiledValidator;
  export const portal: CompiledValidator;
  export const branding: CompiledValidator;
  export const public_theme: CompiledValidator;
  export const knowledge_sources: CompiledValidator;
}
