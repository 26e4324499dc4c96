// The dashboard's router: the frames (signed out, signed in, settings) and the screens in each
// (routes/screens.tsx). The guards (routes/guards.tsx) decide which frame a visitor may see.
import { createBrowserRouter, RouterProvider } from 'react-router';
import { AppError, ScreenError } from './pages/ScreenError';
import { SettingsLayout } from './pages/settings/SettingsLayout';
import { NotFound, Root, SignedInOnly, SignedOutOnly } from './routes/guards';
import { screensIn } from './routes/screens';
import { connectRouter } from './router';

const router = createBrowserRouter([
  {
    element: <Root />,
    // A failure of the frame itself (the session, the top bar): a screen of its own that reloads.
    errorElement: <AppError />,
    children: [
      { element: <SignedOutOnly />, children: screensIn('signed-out') },
      {
        element: <SignedInOnly />,
        children: [
          {
            // A screen that fails while drawing is replaced by an error screen inside the frame:
            // the top bar stays, and moving to another screen leaves the error behind.
            errorElement: <ScreenError />,
            children: [...screensIn('signed-in'), { element: <SettingsLayout />, children: screensIn('settings') }],
          },
        ],
      },
      { path: '*', element: <NotFound /> },
    ],
  },
]);
connectRouter(router);

export function App() {
  return <RouterProvider router={router} />;
}
