//! The one deadline helper: a piece of work, or the end of its time.

use std::future::{poll_fn, Future};
use std::pin::pin;
use std::task::Poll;

/// What `work` gives, or None once `expired` (the host's timer) ends
/// first. Work that is done by then counts as done.
pub async fn before<T>(expired: impl Future, work: impl Future<Output = T>) -> Option<T> {
    let (mut expired, mut work) = (pin!(expired), pin!(work));
    poll_fn(|cx| {
        if let Poll::Ready(done) = work.as_mut().poll(cx) {
            return Poll::Ready(Some(done));
        }
        expired.as_mut().poll(cx).map(|_| None)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::{pending, ready};
    use std::task::{Context, Waker};

    fn now<T>(future: impl Future<Output = T>) -> Poll<T> {
        pin!(future).poll(&mut Context::from_waker(Waker::noop()))
    }

    #[test]
    fn work_done_in_time_counts_even_as_time_ends() {
        assert_eq!(now(before(pending::<()>(), ready(5))), Poll::Ready(Some(5)));
        assert_eq!(now(before(ready(()), ready(5))), Poll::Ready(Some(5)));
        assert_eq!(now(before(ready(()), pending::<u8>())), Poll::Ready(None));
        assert_eq!(now(before(pending::<()>(), pending::<u8>())), Poll::Pending);
    }
}
