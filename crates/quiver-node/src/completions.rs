//! One long-lived thread-safe function per JS environment that delivers every search result.
//! Twin of src/native/completions.ts (tests in src/native/completions.test.ts).
//!
//! A deferred promise per search (napi-rs `create_deferred`) creates and tears down a
//! thread-safe function each time: measurable JS-thread time per request under load. Instead
//! the TS side keeps its own promise per ticket (src/native/completions.ts), a kernel thread
//! posts `(ticket, result bytes | error)` here, and Node batches the posts into one
//! wake-up of the JS thread. The function is unreferenced (it does not keep the process alive)
//! except while the TS side says searches are pending.

use crate::errors::{from_node, internal, NativeError, Result};
use crate::result_bytes::ResultBytes;
use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;
use std::ffi::c_void;
use std::ptr;
use std::sync::{Arc, Mutex};

/// The raw function handle; Node documents calling it from any thread as safe.
struct RawFunction(sys::napi_threadsafe_function);
// SAFETY: napi_call_threadsafe_function is thread safe by contract; ref/unref (JS thread only)
// are only called from #[napi] methods, which run on the JS thread.
unsafe impl Send for RawFunction {}

pub struct Channel {
    /// None once Node has finalized the function (environment teardown).
    function: Mutex<Option<RawFunction>>,
}

pub struct Completion {
    pub ticket: f64,
    pub outcome: Result<ResultBytes>,
}

impl Channel {
    /// Posts a completion to the JS thread; dropped if the environment is gone.
    pub fn send(&self, completion: Completion) {
        let function = self.function.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let Some(function) = function.as_ref() else { return };
        let data = Box::into_raw(Box::new(completion));
        // SAFETY: the function is alive while it is in the mutex (finalize empties it first).
        let status =
            unsafe { sys::napi_call_threadsafe_function(function.0, data as *mut c_void, sys::ThreadsafeFunctionCallMode::nonblocking) };
        if status != sys::Status::napi_ok {
            // Closing: the JS side is going away; reclaim the box.
            // SAFETY: Node did not take the pointer.
            drop(unsafe { Box::from_raw(data) });
        }
    }
}

unsafe extern "C" fn finalize(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    // SAFETY: `data` is the Arc leaked in `CompletionChannel::new`, given back exactly once.
    let channel = unsafe { Arc::from_raw(data as *const Channel) };
    *channel.function.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = None;
}

unsafe extern "C" fn deliver(env: sys::napi_env, callback: sys::napi_value, _context: *mut c_void, data: *mut c_void) {
    // SAFETY: `data` is a Box<Completion> from `Channel::send`, delivered exactly once.
    let completion = unsafe { Box::from_raw(data as *mut Completion) };
    if env.is_null() || callback.is_null() {
        return; // torn down with items queued
    }
    // SAFETY: called by Node on the JS thread with a live env.
    unsafe {
        let mut undefined = ptr::null_mut();
        sys::napi_get_undefined(env, &mut undefined);
        let mut ticket = ptr::null_mut();
        sys::napi_create_double(env, completion.ticket, &mut ticket);
        let (buffer, error) = match completion.outcome {
            Ok(bytes) => (ResultBytes::to_napi_value(env, bytes).unwrap_or(undefined), undefined),
            Err(failure) => (undefined, js_error(env, failure).unwrap_or(undefined)),
        };
        let arguments = [ticket, buffer, error];
        let mut result = ptr::null_mut();
        sys::napi_call_function(env, undefined, callback, arguments.len(), arguments.as_ptr(), &mut result);
    }
}

/// A JS Error whose `code` is the failure's code (napi-rs builds it from the status), or None
/// if the environment is going away and cannot build one.
///
/// # Safety
/// `env` is live and this runs on its JS thread.
unsafe fn js_error(env: sys::napi_env, failure: NativeError) -> Option<sys::napi_value> {
    // SAFETY: the caller's contract.
    let value = unsafe { JsError::from(failure).into_value(env) };
    (!value.is_null()).then_some(value)
}

/// The JS handle: `new CompletionChannel((ticket, buffer, error) => ...)`, once per module.
#[napi]
pub struct CompletionChannel {
    channel: Arc<Channel>,
    raw: sys::napi_threadsafe_function,
}

impl CompletionChannel {
    pub fn channel(&self) -> Arc<Channel> {
        Arc::clone(&self.channel)
    }
}

#[napi]
impl CompletionChannel {
    #[napi(constructor, ts_args_type = "deliver: (ticket: number, result: ArrayBuffer | undefined, error: Error | undefined) => void")]
    pub fn new(env: Env, deliver_to: Unknown<'_>) -> Result<CompletionChannel> {
        let channel = Arc::new(Channel { function: Mutex::new(None) });
        let name = "quiver-completions";
        let mut raw = ptr::null_mut();
        let finalize_data = Arc::into_raw(Arc::clone(&channel)) as *mut c_void;
        // SAFETY: plain Node-API calls on the JS thread with valid arguments.
        unsafe {
            let mut resource_name = ptr::null_mut();
            check_status!(sys::napi_create_string_utf8(env.raw(), name.as_ptr() as *const _, name.len() as isize, &mut resource_name))
                .map_err(from_node)?;
            let status = sys::napi_create_threadsafe_function(
                env.raw(),
                deliver_to.raw(),
                ptr::null_mut(),
                resource_name,
                0,
                1,
                finalize_data,
                Some(finalize),
                ptr::null_mut(),
                Some(deliver),
                &mut raw,
            );
            if status != sys::Status::napi_ok {
                drop(Arc::from_raw(finalize_data as *const Channel));
                return Err(internal("cannot create the completion channel"));
            }
            check_status!(sys::napi_unref_threadsafe_function(env.raw(), raw)).map_err(from_node)?;
        }
        *channel.function.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(RawFunction(raw));
        Ok(CompletionChannel { channel, raw })
    }

    /// Keeps the event loop alive while searches are pending (true), or lets it go (false).
    #[napi]
    pub fn hold(&self, env: Env, hold: bool) -> Result<()> {
        let alive = self.channel.function.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).is_some();
        if !alive {
            return Ok(());
        }
        // SAFETY: JS thread, live function.
        unsafe {
            if hold {
                check_status!(sys::napi_ref_threadsafe_function(env.raw(), self.raw)).map_err(from_node)?;
            } else {
                check_status!(sys::napi_unref_threadsafe_function(env.raw(), self.raw)).map_err(from_node)?;
            }
        }
        Ok(())
    }
}
