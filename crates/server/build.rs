//! Rebuild when the web app's build output changes, so a release binary embeds the latest app.
fn main() {
    println!("cargo:rerun-if-changed=../../web/dist");
    println!("cargo:rerun-if-changed=../../web/dist/index.html");
}
