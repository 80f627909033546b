use presa::client::Client;

fn main() {
    let _ = Client::builder().on_sampling(|_| async { "Paris".to_owned() });
}
