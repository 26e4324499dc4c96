// Checks the forms make before sending, with sentences of their own: the browser's validation
// bubbles are off (noValidate) because they vanish, cannot be styled and read badly aloud.

/** Something@something: the server decides the rest. */
export const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+$/;

export const emailRules = {
  validate: (value: string) => {
    const email = value.trim();
    if (email === '') return 'Enter your e-mail address.';
    return EMAIL_SHAPE.test(email) || 'Enter an e-mail address like name@example.com.';
  },
};
