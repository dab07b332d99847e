//! Embeds the libtorch library folder as an rpath in the examples (as in
//! crates/bias-plm/build.rs), so they run without `LD_LIBRARY_PATH`. Without the `torch`
//! feature there is no libtorch and nothing to embed.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_TCH_LIBTORCH_LIB");
    if let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
        if cfg!(target_os = "linux") || cfg!(target_os = "macos") {
            println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
        }
    }
}
