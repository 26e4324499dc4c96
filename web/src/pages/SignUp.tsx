import { useMutation } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { ApiError, errorMessage } from '../api/errors';
import { Alert } from '../components/Alert';
import { AuthScreen } from '../components/AuthScreen';
import { Button } from '../components/Button';
import { Field } from '../components/Field';
import { SingleSignOnButtons } from '../components/SingleSignOnButtons';
import { emailRules } from '../components/formRules';
import { useSignupAvailability } from '../components/useSignupAvailability';
import { Link, queryOf, useLocation } from '../router';
import { goAfterSignIn, nextQuery } from '../signInRedirect';
import { useSession } from '../session';
import { useTitle } from '../useTitle';
import { AUTH_ERRORS } from '@server/auth/errors';
import { USER_ERRORS } from '@server/users/errors';
import { signInWithPassword, signUp } from '../api/signIn';

/** The server names fields by path and words its message to follow the field's name. */
function problemAt(error: unknown, field: string, label: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const message = error.fieldMessage(field);
  if (message !== undefined) return `${label} ${message}.`;
  if (field === 'email' && error.code === USER_ERRORS.EMAIL_TAKEN) return error.detail;
  return undefined;
}

const FIELDS = [
  ['name', 'Name'],
  ['email', 'E-mail'],
  ['password', 'Password'],
] as const;

/**
 * /sign-up. POST /auth/signup answers a JWT for API clients and sets no cookie, so the web
 * session comes from a password sign-in with the same credentials right after.
 */
export function SignUpPage() {
  useTitle('Create an account');
  const signup = useSignupAvailability();
  const { refresh } = useSession();
  // Where to go once signed in, e.g. back to the invitation that led here.
  const parameters = queryOf(useLocation());
  const nextParameter = parameters.get('next');
  // An invitation's page sends the invited address along (?email=): the form starts with it.
  const { register, handleSubmit, formState } = useForm<{ name: string; email: string; password: string }>({ defaultValues: { name: '', email: parameters.get('email') ?? '', password: '' } });
  // The account exists once the first step succeeds; only the sign-in after it may still fail (a rate limit, say).
  const signInAfter = useMutation({
    mutationFn: async (credentials: { email: string; password: string }) => {
      await signInWithPassword(credentials);
      await refresh();
      goAfterSignIn(nextParameter);
    },
  });
  const create = useMutation({
    mutationFn: (values: { name: string; email: string; password: string }) => signUp({ email: values.email.trim(), password: values.password, ...(values.name.trim() === '' ? {} : { name: values.name.trim() }) }),
    onSuccess: (_created, values) => signInAfter.mutate({ email: values.email.trim(), password: values.password }),
  });
  const error = create.error ?? undefined;
  const createdButNotSignedIn = signInAfter.error === null ? undefined : errorMessage(signInAfter.error);

  if (signup === 'closed') {
    return (
      <AuthScreen title="Sign-up is closed" footer={<SignInLink next={nextParameter} />}>
        <Alert kind="info">This Siteward server does not take new sign-ups. Ask its administrator for an account.</Alert>
      </AuthScreen>
    );
  }

  if (createdButNotSignedIn !== undefined) {
    return (
      <AuthScreen title="Your account is ready">
        <Alert kind="warning" title="We could not sign you in">
          {createdButNotSignedIn}
        </Alert>
        <Link to={`/sign-in${nextQuery(nextParameter)}`} className="button button-primary button-block">
          Go to sign in
        </Link>
      </AuthScreen>
    );
  }

  const fieldErrors: Record<string, string | undefined> = Object.fromEntries(FIELDS.map(([field, label]) => [field, formState.errors[field]?.message ?? problemAt(error, field, label)]));
  const closed = error instanceof ApiError && error.code === AUTH_ERRORS.SIGNUP_CLOSED;
  const showAlert = error !== undefined && FIELDS.every(([field, label]) => problemAt(error, field, label) === undefined);
  return (
    <AuthScreen title="Create your account" intro="Manage your sites, widgets and integrations in one place." footer={<SignInLink next={nextParameter} />}>
      {showAlert && (
        <Alert kind="error" title={closed ? 'Sign-up is closed' : undefined}>
          {errorMessage(error)}
        </Alert>
      )}
      <SingleSignOnButtons next={nextParameter} separator />
      <form onSubmit={handleSubmit((values) => create.mutate(values))} noValidate>
        <Field label="Name (optional)" autoComplete="name" error={fieldErrors.name} {...register('name')} />
        <Field
          label="E-mail"
          type="email"
          autoComplete="email"
          required
          autoFocus
          error={fieldErrors.email}
          {...register('email', emailRules)}
        />
        <Field
          label="Password"
          type="password"
          autoComplete="new-password"
          required
          error={fieldErrors.password}
          {...register('password', { required: 'Choose a password.' })}
          hint="8 to 256 characters. Common passwords, repeats, sequences and your own e-mail address or name are refused; a few unrelated words make a strong one."
        />
        <Button type="submit" variant="primary" className="button-block" busy={create.isPending || signInAfter.isPending}>
          Create account
        </Button>
      </form>
    </AuthScreen>
  );
}

function SignInLink({ next }: { next: string | null }) {
  return (
    <p>
      Already have an account? <Link to={`/sign-in${nextQuery(next)}`}>Sign in</Link>
    </p>
  );
}
