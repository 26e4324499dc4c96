import { useEffect, useState, useSyncExternalStore } from 'react';
import { errorMessage } from '../api/errors';
import type { User } from '../api/types';
import { Alert } from '../components/Alert';
import { AuthScreen } from '../components/AuthScreen';
import { Button } from '../components/Button';
import { PasskeySignInButton } from '../components/PasskeySignInButton';
import { MagicLinkRequestForm, MagicLinkSent, MailIcon } from '../components/SignInMagicLink';
import { SignInPasswordForm } from '../components/SignInPasswordForm';
import { SignInSecondFactor } from '../components/SignInSecondFactor';
import { SingleSignOnButtons } from '../components/SingleSignOnButtons';
import { useSignupAvailability } from '../components/useSignupAvailability';
import { Link, queryOf, useLocation } from '../router';
import { useSession } from '../session';
import { goAfterSignIn, nextQuery, rememberNextForSignInLink } from '../signInRedirect';
import { clearSignInNotice, peekSignInNotice, subscribeToSignInNotice } from '../signInNotice';
import { useTitle } from '../useTitle';

type Step =
  | { kind: 'password' }
  | { kind: 'second-factor'; email: string }
  | { kind: 'magic-link' }
  | { kind: 'forgot-password' }
  | { kind: 'magic-link-sent'; email: string };

const TITLES: Record<Step['kind'], string> = {
  password: 'Sign in to Siteward',
  'second-factor': 'Two-factor authentication',
  'magic-link': 'E-mail me a sign-in link',
  'forgot-password': 'Forgot your password?',
  'magic-link-sent': 'Check your inbox',
};

/** /sign-in: password (then the TOTP step when on), a single sign-on provider, a passkey, or a link by e-mail. */
export function SignInPage() {
  const location = useLocation();
  const { refresh } = useSession();
  const signup = useSignupAvailability();
  const [step, setStep] = useState<Step>({ kind: 'password' });
  // An invitation's page sends the invited address along (?email=): the form starts with it.
  const [email, setEmail] = useState(() => queryOf(location).get('email') ?? '');
  // What this screen says about the last attempt, else why a screen signed the person out for good
  // (account deleted).
  const [attemptNotice, setNotice] = useState<string | undefined>(undefined);
  const leftNotice = useSyncExternalStore(subscribeToSignInNotice, peekSignInNotice);
  const notice = attemptNotice ?? leftNotice;
  // Cleared on leaving the sign-in screen, not on arriving: signing out redirects here and the
  // forced navigation lands here again, which may mount the screen twice.
  useEffect(() => () => {
    if (!window.location.pathname.startsWith('/sign-in')) clearSignInNotice();
  }, []);
  useTitle(TITLES[step.kind]);

  const nextParameter = queryOf(location).get('next');

  /** The server set the full session cookie: learn who we are, then go where the sign-in leads. */
  async function finishSignIn() {
    try {
      await refresh();
    } catch (error) {
      setNotice(errorMessage(error));
      return;
    }
    goAfterSignIn(nextParameter);
  }

  async function passwordAccepted(user: User, secondFactorRequired: boolean) {
    if (secondFactorRequired) {
      setNotice(undefined);
      setStep({ kind: 'second-factor', email: user.email });
      return;
    }
    await finishSignIn();
  }

  function restart(message?: string) {
    setNotice(message);
    setStep({ kind: 'password' });
  }

  const signUpLink =
    signup === 'open' ? (
      <p>
        New to Siteward? <Link to={`/sign-up${nextQuery(nextParameter)}`}>Create an account</Link>
      </p>
    ) : signup === 'closed' ? (
      <p>New to Siteward? Ask the administrator of this server for an account.</p>
    ) : undefined;

  switch (step.kind) {
    case 'second-factor':
      return (
        <AuthScreen title={TITLES[step.kind]}>
          <SignInSecondFactor email={step.email} onSignedIn={finishSignIn} onRestart={restart} />
        </AuthScreen>
      );
    case 'magic-link':
    case 'forgot-password':
      return (
        <AuthScreen
          title={TITLES[step.kind]}
          intro={
            step.kind === 'forgot-password'
              ? 'We will e-mail you a link that signs you in without a password. After signing in by link, you can set a new password under Settings > Security, without the old one.'
              : 'We will e-mail you a link that signs you in without a password.'
          }
        >
          <MagicLinkRequestForm
            initialEmail={email}
            onSent={(sentTo) => {
              rememberNextForSignInLink(nextParameter);
              setEmail(sentTo);
              setStep({ kind: 'magic-link-sent', email: sentTo });
            }}
            onBack={() => restart()}
          />
        </AuthScreen>
      );
    case 'magic-link-sent':
      return (
        <AuthScreen title={TITLES[step.kind]} icon={<MailIcon size={28} />}>
          <MagicLinkSent email={step.email} onDifferentAddress={() => setStep({ kind: 'magic-link' })} onBack={() => restart()} />
        </AuthScreen>
      );
    case 'password':
      return (
        <AuthScreen title={TITLES[step.kind]} intro="Welcome back. Sign in to manage your sites." footer={signUpLink}>
          {notice !== undefined && <Alert kind="info">{notice}</Alert>}
          <SignInPasswordForm email={email} onEmailChange={setEmail} onPasswordAccepted={passwordAccepted} />
          <p className="forgot-password">
            <button type="button" className="text-link" onClick={() => setStep({ kind: 'forgot-password' })}>
              Forgot password?
            </button>
          </p>
          <div className="divider">or</div>
          <div className="auth-alternatives">
            <SingleSignOnButtons next={nextParameter} />
            <PasskeySignInButton onSignedIn={finishSignIn} />
            <Button className="button-block" onClick={() => setStep({ kind: 'magic-link' })}>
              <MailIcon />
              E-mail me a sign-in link
            </Button>
          </div>
        </AuthScreen>
      );
  }
}
