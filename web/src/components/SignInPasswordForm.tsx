import { useForm } from 'react-hook-form';
import { ApiError, errorMessage } from '../api/errors';
import type { User } from '../api/types';
import { Alert } from './Alert';
import { Button } from './Button';
import { Field } from './Field';
import { emailRules } from './formRules';
import { signInWithPassword } from '../api/signIn';

interface SignInPasswordFormProps {
  email: string;
  onEmailChange: (email: string) => void;
  /** The password was right; with TOTP on, `secondFactorRequired` asks for the code next. */
  onPasswordAccepted: (user: User, secondFactorRequired: boolean) => Promise<void>;
}

interface Values {
  email: string;
  password: string;
}

/** E-mail and password → POST /auth/session, which sets the session cookie (pending when TOTP is on). */
export function SignInPasswordForm({ email, onEmailChange, onPasswordAccepted }: SignInPasswordFormProps) {
  const { register, handleSubmit, setError, setValue, formState } = useForm<Values>({ defaultValues: { email, password: '' } });

  async function submit(values: Values) {
    try {
      const data = await signInWithPassword({ email: values.email.trim(), password: values.password });
      await onPasswordAccepted(data.user, data.second_factor_required);
    } catch (caught) {
      // A refused password is retyped, never reused by accident.
      if (caught instanceof ApiError && caught.status === 401) setValue('password', '');
      const emailError = caught instanceof ApiError ? caught.fieldMessage('email') : undefined;
      const passwordError = caught instanceof ApiError ? caught.fieldMessage('password') : undefined;
      if (emailError !== undefined) setError('email', { message: emailError });
      if (passwordError !== undefined) setError('password', { message: passwordError });
      if (emailError === undefined && passwordError === undefined) setError('root', { message: errorMessage(caught) });
    }
  }

  const { errors } = formState;
  return (
    <form onSubmit={handleSubmit(submit)} noValidate>
      {errors.root?.message !== undefined && <Alert kind="error">{errors.root.message}</Alert>}
      <Field
        label="E-mail"
        type="email"
        autoComplete="username"
        required
        autoFocus
        error={errors.email?.message}
        {...register('email', { ...emailRules, onChange: (event: { target: { value: string } }) => onEmailChange(event.target.value) })}
      />
      <Field label="Password" type="password" autoComplete="current-password" required error={errors.password?.message} {...register('password', { required: 'Enter your password.' })} />
      <Button type="submit" variant="primary" className="button-block" busy={formState.isSubmitting}>
        Sign in
      </Button>
    </form>
  );
}
