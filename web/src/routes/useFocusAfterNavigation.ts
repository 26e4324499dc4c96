import { useEffect, useRef } from 'react';
import { useLocation as useRouterLocation } from 'react-router';
import { screenOf } from '../router';

/**
 * After moving to another screen, focus goes to its main heading (else its main), and the page
 * scrolls to the top, as a page load would: keyboard and screen reader users start on the new
 * screen instead of on the link they followed. Moving between the editor's sections and changing
 * a list's query keep focus where it is.
 */
export function useFocusAfterNavigation() {
  const location = useRouterLocation();
  const screen = screenOf(location.pathname);
  const previous = useRef(screen);
  useEffect(() => {
    if (previous.current === screen) return;
    previous.current = screen;
    window.scrollTo(0, 0);
    // After the new screen has rendered its heading: a screen loaded on first use takes a few
    // frames, so look for up to a second before settling for <main>.
    let frame = 0;
    let framesLeft = 60;
    const focusHeading = () => {
      const heading = document.querySelector<HTMLElement>('main h1');
      if (heading === null && --framesLeft > 0) {
        frame = window.requestAnimationFrame(focusHeading);
        return;
      }
      const target = heading ?? document.querySelector<HTMLElement>('main');
      if (target === null) return;
      if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
      target.focus({ preventScroll: true });
    };
    frame = window.requestAnimationFrame(focusHeading);
    return () => window.cancelAnimationFrame(frame);
  }, [screen]);
}

