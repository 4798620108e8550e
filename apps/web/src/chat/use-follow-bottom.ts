import { type RefObject, type UIEvent, useEffect, useMemo, useRef } from 'react';

/** How close to the end (px) still counts as reading it: a line or two of slack. */
const FOLLOW_SLACK = 120;

export interface FollowBottom {
  /** Back to the end if the reader is following (after each render). */
  keep: () => void;
  /** Follow again from now on, and go to the end (a message was sent). */
  resume: () => void;
  onScroll: (event: UIEvent<HTMLElement>) => void;
}

/** In a narrow window the list does not scroll itself: the page does. */
const scrollsItself = (el: HTMLElement) => /(auto|scroll)/.test(getComputedStyle(el).overflowY);

const nearEnd = (el: Element) => el.scrollHeight - el.scrollTop - el.clientHeight < FOLLOW_SLACK;

/**
 * Keeps a growing list scrolled to its end while the reader is there, as a chat does: scrolling
 * up stops it (what they read stays put), scrolling back to the end or sending a message starts
 * it again. Works whether the list or the page is the one that scrolls.
 */
export function useFollowBottom(list: RefObject<HTMLElement | null>): FollowBottom {
  const following = useRef(true);
  const follow = useMemo(() => {
    const toEnd = () => {
      const el = list.current;
      if (!el) return;
      if (scrollsItself(el)) el.scrollTop = el.scrollHeight;
      else el.lastElementChild?.scrollIntoView({ block: 'end' });
    };
    return {
      keep: () => {
        if (following.current) toEnd();
      },
      resume: () => {
        following.current = true;
        toEnd();
      },
      onScroll: (event: UIEvent<HTMLElement>) => {
        if (scrollsItself(event.currentTarget)) following.current = nearEnd(event.currentTarget);
      },
    };
  }, [list]);

  useEffect(() => {
    const el = list.current;
    if (!el) return;
    // The last entry may grow between renders of the list (an edit's preview once its file came):
    // that moves the end too. Only the last: a card above that the reader unfolds stays put.
    const resize = new ResizeObserver(() => follow.keep());
    const observeLast = () => {
      resize.disconnect();
      if (el.lastElementChild) resize.observe(el.lastElementChild);
    };
    observeLast();
    const added = new MutationObserver(observeLast);
    added.observe(el, { childList: true });
    const onPageScroll = () => {
      const page = document.scrollingElement;
      if (page && !scrollsItself(el)) following.current = nearEnd(page);
    };
    window.addEventListener('scroll', onPageScroll, { passive: true });
    return () => {
      resize.disconnect();
      added.disconnect();
      window.removeEventListener('scroll', onPageScroll);
    };
  }, [list, follow]);

  return follow;
}
