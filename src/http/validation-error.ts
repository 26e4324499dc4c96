import { AppError, type FieldError } from '../errors.js';
import { HTTP_ERRORS } from './errors.js';

/** 400 `validation_failed` naming each field and what is wrong with it, as schema validation answers. */
export function validationError(errors: FieldError[]): AppError {
  const detail = errors.map((error) => `${error.path || '/'}: ${error.message}`).join('; ');
  return new AppError(400, HTTP_ERRORS.VALIDATION_FAILED, detail, { errors });
}
