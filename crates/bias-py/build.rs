//! The extension module finds libtorch where pip puts it beside the wheel
//! (`site-packages/torch/lib`, from `site-packages/bias_lm/`) and, for a build used in place,
//! where it was linked; `import bias_lm` also imports torch first, which loads the same libraries.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_TCH_LIBTORCH_LIB");
    if cfg!(target_os = "linux") {
        println!("cargo:rustc-link-arg-cdylib=-Wl,-rpath,$ORIGIN/../torch/lib");
        if let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
            println!("cargo:rustc-link-arg-cdylib=-Wl,-rpath,{lib}");
        }
    }
}
